package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.objectstore.ObjectStore;
import dev.dht.node.support.IdentityEndpoints;
import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.ObjectStoreServer;
import dev.dht.node.support.TestNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a node's object store credentials come from when no Secret is mounted: the AWS SDK's default chain, driven
 * by the environment EKS gives a pod, against a real S3-compatible server (versitygw) and loopback endpoints that
 * speak the identity protocols ({@link IdentityEndpoints}). Each case is one node process that was given no key
 * (no --backup-credentials, no AWS_* but the case's own, no profile file), so whatever versitygw accepts or
 * refuses was signed with what the endpoint handed out:
 * <ul>
 *   <li>EKS Pod Identity (container credentials): the agent's URL and token file; the endpoint gets the file's
 *       token and hands out versitygw's key; a backup completes.</li>
 *   <li>IRSA (web identity): the token file and role; STS gets the file's token and the role and hands out
 *       versitygw's key with a session token. versitygw accepts no session token it did not mint itself (and its own
 *       STS refuses identity providers on loopback addresses), so it answers InvalidToken, which it answers only to a
 *       request signed with a key it knows that also carries a session token: both came from STS.</li>
 *   <li>A wrong key (a Secret's): the node's backup status names the store's refusal and what to check, at start and
 *       for a backup.</li>
 * </ul>
 * About 20 s on the 2-core machine (three node starts).
 */
class CredentialChainIT {
    static final String BUCKET = "chain";
    static final String ROLE = "arn:aws:iam::111122223333:role/dht-backup";

    @TempDir
    static Path dir;

    static ObjectStoreServer store;
    static ObjectStore s3;

    @BeforeAll
    static void start() {
        store = ObjectStoreServer.start(dir.resolve("s3"));
        s3 = store.client(BUCKET, "");
    }

    @AfterAll
    static void stop() {
        if (store != null) {
            store.close();
        }
    }

    /** A one-member node with backups to prefix, its environment only env (plus no profile files). */
    static NodeProcess node(String prefix, List<String> more, Map<String, String> env) {
        int port = TestNode.freePort();
        List<String> args = new ArrayList<>(List.of(
                "--port",
                String.valueOf(port),
                "--data-dir",
                dir.resolve(prefix).toString(),
                "--cluster",
                "http://localhost:" + port,
                "--backup-endpoint",
                store.endpoint().toString(),
                "--backup-bucket",
                BUCKET,
                "--backup-prefix",
                prefix));
        args.addAll(more);
        Map<String, String> all = new HashMap<>(env);
        all.put("AWS_SHARED_CREDENTIALS_FILE", dir.resolve("no-such-file").toString());
        all.put("AWS_CONFIG_FILE", dir.resolve("no-such-file").toString());
        return NodeProcess.start(dir.resolve("logs"), prefix, port, args, all).awaitReady();
    }

    static Path token(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
    }

    /** Waits until the node's store probe has an outcome; returns its "store" status. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> probed(NodeProcess node) {
        Map<String, Object>[] store = new Map[1];
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            store[0] = (Map<String, Object>)
                    BackupAdmin.get(node, "/v0/admin/backup").json().get("store");
            return store[0].get("ok") != null;
        });
        return store[0];
    }

    static BackupAdmin.Answer backup(NodeProcess node, String id, String phase) throws Exception {
        assertThat(node.put("/v0/entity?id=k1", "v1".getBytes(StandardCharsets.UTF_8))
                        .statusCode())
                .isEqualTo(201);
        BackupAdmin.Answer a = BackupAdmin.post(
                node, "/v0/admin/backup", Map.of("id", id, "t0", System.currentTimeMillis(), "member", 0L));
        assertThat(a.status()).as("%s", a).isEqualTo(202);
        BackupAdmin.Answer[] last = new BackupAdmin.Answer[1];
        await().atMost(Duration.ofMinutes(2)).until(() -> {
            last[0] = BackupAdmin.get(node, "/v0/admin/backup");
            return phase.equals(last[0].json().get("phase"));
        });
        return last[0];
    }

    @Test
    void podIdentityContainerCredentialsAreTakenAndABackupCompletes() throws Exception {
        Path token = token("pod-identity-token", "eks-pod-identity-token-4f1d");
        try (IdentityEndpoints agent = IdentityEndpoints.start(new IdentityEndpoints.Issued(
                        ObjectStoreServer.ACCESS_KEY, ObjectStoreServer.SECRET_KEY, null));
                NodeProcess node = node(
                        "pod-identity",
                        List.of(),
                        Map.of(
                                "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                                agent.url() + IdentityEndpoints.CONTAINER_PATH,
                                "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
                                token.toString()))) {
            Map<String, Object> probe = probed(node);
            assertThat(probe).containsEntry("ok", true);
            assertThat(probe.get("error"))
                    .as("the probe's error (absent or null)")
                    .isNull();
            backup(node, "pod", "done");
            assertThat(BackupAdmin.post(node, "/v0/admin/backup/finish", Map.of("id", "pod", "members", 1L))
                            .status())
                    .isEqualTo(200);

            assertThat(s3.exists("pod-identity/backups/pod/manifest.json")).isTrue();
            assertThat(agent.calls()).isNotEmpty().allSatisfy(c -> {
                assertThat(c.method()).isEqualTo("GET");
                assertThat(c.path()).isEqualTo(IdentityEndpoints.CONTAINER_PATH);
                assertThat(c.authorization()).isEqualTo("eks-pod-identity-token-4f1d");
            });
        }
    }

    @Test
    void irsaExchangesTheTokenFileWithStsAndSignsWithWhatStsGave() throws Exception {
        Path token = token("irsa-token", "eyJhbGciOiJSUzI1NiJ9.irsa-projected-token.sig");
        try (IdentityEndpoints sts = IdentityEndpoints.start(new IdentityEndpoints.Issued(
                        ObjectStoreServer.ACCESS_KEY, ObjectStoreServer.SECRET_KEY, "sts-session-token-9c2e"));
                NodeProcess node = node(
                        "irsa",
                        List.of(),
                        Map.of(
                                "AWS_WEB_IDENTITY_TOKEN_FILE",
                                token.toString(),
                                "AWS_ROLE_ARN",
                                ROLE,
                                "AWS_REGION",
                                "us-east-1",
                                "AWS_ENDPOINT_URL_STS",
                                sts.url()))) {
            Map<String, Object> probe = probed(node);
            assertThat(probe).containsEntry("ok", false);
            assertThat(String.valueOf(probe.get("error")))
                    .contains("InvalidToken")
                    .contains("the store refused the credentials");

            assertThat(sts.calls()).isNotEmpty().allSatisfy(c -> {
                assertThat(c.method()).isEqualTo("POST");
                assertThat(c.form())
                        .containsEntry("Action", "AssumeRoleWithWebIdentity")
                        .containsEntry("Version", "2011-06-15")
                        .containsEntry("RoleArn", ROLE)
                        .containsEntry("WebIdentityToken", "eyJhbGciOiJSUzI1NiJ9.irsa-projected-token.sig")
                        .containsKey("RoleSessionName");
            });
            BackupAdmin.Answer failed = backup(node, "irsa", "failed");
            assertThat(String.valueOf(failed.json().get("error"))).contains("InvalidToken");
        }
    }

    @Test
    void aWrongKeyIsAClearErrorInTheBackupStatus() throws Exception {
        Path creds = ObjectStoreServer.writeCredentials(
                dir.resolve("wrong-creds"), ObjectStoreServer.ACCESS_KEY, "not-the-secret");
        try (NodeProcess node = node("wrong", List.of("--backup-credentials", creds.toString()), Map.of())) {
            Map<String, Object> probe = probed(node);
            assertThat(probe).containsEntry("ok", false);
            assertThat(String.valueOf(probe.get("error")))
                    .contains("SignatureDoesNotMatch")
                    .contains("the store refused the credentials (static keys in " + creds + ")");
            assertThat(node.output()).contains("object store not usable").contains("SignatureDoesNotMatch");
            BackupAdmin.Answer failed = backup(node, "wrong", "failed");
            assertThat(String.valueOf(failed.json().get("error")))
                    .contains("SignatureDoesNotMatch")
                    .contains("check the credentials Secret");
        }
    }
}
