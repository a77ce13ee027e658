package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.nodeadmin.JdkMemberTlsProbe;
import dev.dht.operator.security.SecretData;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.security.pki.CertificateAuthority;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.tls.TlsSecrets;
import dev.dht.operator.testing.NodeJars;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's member certificates against the real node's member mutual TLS: two packaged node jars run with the
 * files of the member Secret the operator writes (TlsSecrets.member, as the pods mount it) and replicate a write to
 * each other over TLS; the operator's probe (JdkMemberTlsProbe, what a CA replacement waits on) reads the
 * certificate a member serves; a client certificate of another CA is refused by the node.
 */
class MemberTlsContractIT {
    static final int MEMBER_PORT_OFFSET = NodeJars.MEMBER_PORT_OFFSET;
    static final String NAMESPACE = "ns";
    static final String MEMBER_NAME = "kv-0.kv-headless." + NAMESPACE + ".svc.cluster.local";

    @TempDir
    Path dir;

    NodeJars nodes;
    final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    final CertificateAuthority authority = new CertificateAuthority(new SecureRandom());

    @BeforeEach
    void nodes() {
        nodes = new NodeJars(dir);
    }

    @AfterEach
    void stop() throws InterruptedException {
        nodes.close();
        http.close();
    }

    @Test
    void membersWithTheOperatorsCertificatesReplicateOverMutualTls() throws Exception {
        try {
            replicateAndProbe();
        } catch (Throwable t) {
            nodes.printLogs();
            throw t;
        }
    }

    void replicateAndProbe() throws Exception {
        Instant now = Instant.now();
        Credential ca = authority.createCa("dht-ca " + NAMESPACE + "/kv", now, Duration.ofDays(30));
        // The name the operator puts in the member certificate: a wildcard over the headless Service.
        Credential member = authority.issue(
                ca, "kv member", List.of("*.kv-headless." + NAMESPACE + ".svc.cluster.local"), now, Duration.ofDays(7));
        Path tls = memberFiles(ca, member);

        var ports = NodeJars.twoFreePorts();
        int portA = ports.get(0);
        int portB = ports.get(1);
        String a = "http://localhost:" + portA;
        String b = "http://localhost:" + portB;
        Path members = dir.resolve("members");
        Files.writeString(members, a + "\n" + b + "\n");
        nodes.start(a, members, memberTlsOptions(tls));
        nodes.start(b, members, memberTlsOptions(tls));
        await("both members up")
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> status(a + "/v0/status") == 200 && status(b + "/v0/status") == 200);

        // ack=2 from=2: the coordinator must reach the other member's member port, over mutual TLS.
        await("a write acknowledged by both members")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> put(a + "/v0/entity?id=tls-key&ack=2&from=2", "over-tls") == 201);
        HttpResponse<String> read = http.send(
                HttpRequest.newBuilder(URI.create(b + "/v0/entity?id=tls-key&ack=2&from=2"))
                        .timeout(Duration.ofSeconds(10))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).isEqualTo("over-tls");

        // The operator's probe: its own client certificate from the cluster's CA, the member's name checked.
        Credential operator = authority.issue(ca, "dht-operator", List.of("dht-operator"), now, Duration.ofHours(1));
        var served = new JdkMemberTlsProbe()
                .probe("127.0.0.1", portB + MEMBER_PORT_OFFSET, MEMBER_NAME, operator, List.of(ca.certificate()))
                .join();
        assertThat(served.answered())
                .as("the probe's handshake and request: %s", served.detail())
                .isTrue();
        assertThat(served.served()).hasValueSatisfying(c -> assertThat(c).isEqualTo(member.certificate()));

        // A client certificate of another CA is not a member's.
        Credential otherCa = authority.createCa("another CA", now, Duration.ofDays(1));
        Credential stranger =
                authority.issue(otherCa, "dht-operator", List.of("dht-operator"), now, Duration.ofHours(1));
        var refused = new JdkMemberTlsProbe()
                .probe("127.0.0.1", portB + MEMBER_PORT_OFFSET, MEMBER_NAME, stranger, List.of(ca.certificate()))
                .join();
        assertThat(refused.answered())
                .as("a certificate of another CA: %s", refused.detail())
                .isFalse();
    }

    /** The member Secret as the operator builds it, written out as the kubelet mounts it. */
    Path memberFiles(Credential ca, Credential member) throws IOException {
        var cluster = new DhtCluster();
        cluster.getMetadata().setName("kv");
        cluster.getMetadata().setNamespace(NAMESPACE);
        var secret = TlsSecrets.member(cluster, member, List.of(ca.certificate()), "");
        Path tls = Files.createDirectories(dir.resolve("member-tls"));
        for (Map.Entry<String, String> e : SecretData.texts(secret).entrySet()) {
            Files.writeString(tls.resolve(e.getKey()), e.getValue());
        }
        return tls;
    }

    /** The node's member TLS options, pointing at the files as the pods mount them. */
    static String[] memberTlsOptions(Path tls) {
        return new String[] {
            "--member-tls-cert",
            tls.resolve(SecurityNames.TLS_CERT).toString(),
            "--member-tls-key",
            tls.resolve(SecurityNames.TLS_KEY).toString(),
            "--member-tls-ca",
            tls.resolve(SecurityNames.CA_CERT).toString()
        };
    }

    int status(String url) {
        try {
            return http.send(
                            HttpRequest.newBuilder(URI.create(url))
                                    .timeout(Duration.ofSeconds(5))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    int put(String url, String value) throws IOException, InterruptedException {
        return http.send(
                        HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(10))
                                .PUT(HttpRequest.BodyPublishers.ofString(value))
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }
}
