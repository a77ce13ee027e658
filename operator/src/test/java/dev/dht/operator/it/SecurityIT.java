package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.operator.api.v1alpha1.AuthSpec;
import dev.dht.operator.api.v1alpha1.ClientAuthMode;
import dev.dht.operator.api.v1alpha1.ClientTlsSpec;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.DhtUser;
import dev.dht.operator.api.v1alpha1.IssuerRef;
import dev.dht.operator.api.v1alpha1.NetworkSpec;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.TlsMode;
import dev.dht.operator.api.v1alpha1.TlsSpec;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Platform;
import dev.dht.operator.nodeadmin.HttpMemberAdmin;
import dev.dht.operator.nodeadmin.JdkMemberTlsProbe;
import dev.dht.operator.nodeadmin.MemberAddresses;
import dev.dht.operator.reconciler.DhtClusterReconciler;
import dev.dht.operator.reconciler.WriteMetrics;
import dev.dht.operator.security.SecretData;
import dev.dht.operator.security.SecurityModel;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.security.pki.CertificateAuthority;
import dev.dht.operator.security.pki.Certificates;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.pki.Pem;
import dev.dht.operator.security.tls.CertManagerCertificate;
import dev.dht.operator.security.tls.TlsState;
import dev.dht.operator.status.Conditions;
import dev.dht.operator.testing.FakeStatefulSetController;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.OperatorUnderTest;
import dev.dht.operator.testing.RequiresKubeApiServer;
import dev.dht.operator.testing.TlsMember;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.junit.LocallyRunOperatorExtension;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Secure by default, on a real kube-apiserver: a DhtCluster with no security settings gets its CA, its members'
 * certificate, tokens and a NetworkPolicy; certificates renew and the CA is replaced in phases that wait for every
 * member; a user's own Secret and cert-manager are read and judged; each part turns off. The members' member ports
 * are stand-ins speaking real mutual TLS on loopback with whatever the members' Secret holds when a connection
 * arrives (a node that reloads its files), and a test can hold one back on older files.
 *
 * <p>The client port: a new cluster serves TLS with the client CA's certificate, publishes the CA bundle, issues
 * DhtUsers' certificates and the operator's own (with which it calls the members); a client CA replacement waits
 * for every member's client port (stand-ins as above, with the client-port Secret) and the reload grace at each
 * phase; a cluster whose members ran without client TLS keeps it off until its spec says otherwise.
 */
@ExtendWith(RequiresKubeApiServer.class)
class SecurityIT {
    static final Platform PLATFORM = new Platform(
            "dht-node:it",
            "cluster.local",
            "dht-loadrunner:it",
            Optional.of(new Platform.OperatorPeer("dht-system", Map.of("app.kubernetes.io/name", "dht-operator"))));
    static final Duration FUNCTIONAL_BOUND = Duration.ofSeconds(90);
    static final String NAME = "kv";
    final WriteMetrics writes = WriteMetrics.inMemory();
    final KubernetesClient client = KubeApiServer.client();
    final Map<String, TlsMember> members = new ConcurrentHashMap<>();
    final Map<String, TlsMember> clientPorts = new ConcurrentHashMap<>();
    volatile String ns;

    @RegisterExtension
    final LocallyRunOperatorExtension operator = OperatorUnderTest.builder(client)
            .withReconciler(new DhtClusterReconciler(
                    PLATFORM,
                    Clock.systemUTC(),
                    writes,
                    new HttpMemberAdmin(),
                    MemberAddresses.direct(),
                    OperatorUnderTest.POLL_INTERVAL,
                    new JdkMemberTlsProbe(),
                    (namespace, cluster, pod) ->
                            Map.entry("127.0.0.1", member(pod).port()),
                    (namespace, cluster, pod) ->
                            Map.entry("127.0.0.1", clientPort(pod).port())))
            .build();

    FakeStatefulSetController statefulSets;

    @BeforeEach
    void start() {
        ns = operator.getNamespace();
        statefulSets = new FakeStatefulSetController(client, ns).start();
    }

    @AfterEach
    void stop() {
        members.values().forEach(TlsMember::close);
        clientPorts.values().forEach(TlsMember::close);
        statefulSets.close();
    }

    /** A pod's member port: serves what the Secret kv-member-tls holds now (unless frozen). */
    TlsMember member(String pod) {
        return members.computeIfAbsent(
                pod,
                p -> new TlsMember(() -> {
                    var secret = client.secrets()
                            .inNamespace(ns)
                            .withName(SecurityNames.memberTlsSecret(NAME))
                            .get();
                    var state = TlsState.read(Optional.empty(), Optional.ofNullable(secret));
                    return state.member()
                            .map(m -> new TlsMember.Files(m, state.trusted()))
                            .orElse(null);
                }));
    }

    /** A pod's client port: serves what the Secret kv-client-tls holds now (unless frozen). */
    TlsMember clientPort(String pod) {
        return clientPorts.computeIfAbsent(
                pod,
                p -> new TlsMember(() -> {
                    var secret = client.secrets()
                            .inNamespace(ns)
                            .withName(SecurityNames.clientTlsSecret(NAME))
                            .get();
                    var state = TlsState.read(Optional.empty(), Optional.ofNullable(secret));
                    return state.member()
                            .map(m -> new TlsMember.Files(m, state.trusted()))
                            .orElse(null);
                }));
    }

    @Test
    void aClusterWithoutSecuritySettingsGetsCertificatesTokensAndAPolicy() throws Exception {
        operator.create(cluster(s -> {}));
        awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.tls.mode).isEqualTo(TlsMode.Operator);
            assertThat(s.tls.rotation).isEqualTo("Steady");
            assertThat(condition(s, "CertificatesValid")).isEqualTo("True/Valid");
            assertThat(condition(s, "CredentialsReady")).isEqualTo("True/Ready");
        });
        var status = status();
        var now = Instant.now();
        assertThat(Instant.parse(status.tls.certificateNotAfter))
                .isBetween(now.plus(Duration.ofDays(89)), now.plus(Duration.ofDays(91)));
        assertThat(Instant.parse(status.tls.caNotAfter))
                .isBetween(now.plus(Duration.ofDays(364)), now.plus(Duration.ofDays(366)));
        assertThat(Conditions.find(status.conditions, "CredentialsReady")
                        .orElseThrow()
                        .getMessage())
                .isEqualTo("1 read-write, 1 read-only and 1 admin token(s) in Secret kv-auth");

        var ca = secret("kv-ca");
        assertThat(ca.getData()).containsOnlyKeys("ca.crt", "ca.key");
        var tls = secret("kv-member-tls");
        assertThat(tls.getType()).isEqualTo("kubernetes.io/tls");
        assertThat(tls.getData()).containsOnlyKeys("tls.crt", "tls.key", "ca.crt");
        assertThat(SecretData.text(tls, "tls.key").orElseThrow()).startsWith("-----BEGIN PRIVATE KEY-----");
        var memberCert = Pem.readCertificates(SecretData.text(tls, "tls.crt").orElseThrow())
                .get(0);
        var caCert = Pem.readCertificates(SecretData.text(ca, "ca.crt").orElseThrow())
                .get(0);
        assertThat(Pem.readCertificates(SecretData.text(tls, "ca.crt").orElseThrow()))
                .containsExactly(caCert);
        assertThat(Certificates.signedBy(memberCert, caCert)).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(Certificates.covers(memberCert, "kv-" + i + ".kv-headless." + ns + ".svc.cluster.local"))
                    .isTrue();
        }
        assertThat(status.tls.certificateFingerprint).isEqualTo(Certificates.fingerprint(memberCert));
        assertThat(status.tls.caFingerprint).isEqualTo(Certificates.fingerprint(caCert));
        // A member with these files talks to another over mutual TLS, checking its DNS name as a peer does.
        var files = TlsState.read(Optional.empty(), Optional.of(tls));
        var seen = new JdkMemberTlsProbe()
                .probe(
                        "127.0.0.1",
                        member("kv-1").port(),
                        "kv-1.kv-headless." + ns + ".svc.cluster.local",
                        files.member().orElseThrow(),
                        files.trusted())
                .get(30, TimeUnit.SECONDS);
        assertThat(seen.answered()).as(seen.detail()).isTrue();

        var credentials = SecretData.texts(secret("kv-auth"));
        assertThat(credentials).containsOnlyKeys("read-write", "read-only", "admin");
        assertThat(credentials.values())
                .allSatisfy(t -> assertThat(t).hasSize(43))
                .doesNotHaveDuplicates();
        var tokens = secret("kv-auth-tokens");
        var lines = SecretData.text(tokens, "tokens")
                .orElseThrow()
                .lines()
                .filter(l -> !l.startsWith("#"))
                .toList();
        String operatorToken = SecretData.text(tokens, "operator").orElseThrow();
        assertThat(lines)
                .containsExactlyInAnyOrder(
                        "read-write " + credentials.get("read-write"),
                        "read-only " + credentials.get("read-only"),
                        "admin " + credentials.get("admin"),
                        "admin " + operatorToken);

        var policy = client.network()
                .v1()
                .networkPolicies()
                .inNamespace(ns)
                .withName(NAME)
                .get();
        assertThat(policy.getSpec().getPodSelector().getMatchLabels()).isEqualTo(Labels.selector(NAME));
        assertThat(policy.getSpec().getIngress())
                .extracting(r -> r.getPorts().get(0).getPort().getIntVal())
                .containsExactly(18080, 8080, 9080);

        // Rotating a token: a second key, then the first removed; the tokens file follows, the credentials stay theirs.
        String next = "next-token-0123456789abcdef";
        client.secrets().inNamespace(ns).withName("kv-auth").edit(s -> {
            s.getData().put("read-write.next", java.util.Base64.getEncoder().encodeToString(next.getBytes()));
            return s;
        });
        await().atMost(FUNCTIONAL_BOUND)
                .untilAsserted(() -> assertThat(SecretData.text(secret("kv-auth-tokens"), "tokens")
                                .orElseThrow())
                        .contains("read-write " + next)
                        .contains(credentials.get("read-write")));
        client.secrets().inNamespace(ns).withName("kv-auth").edit(s -> {
            s.getData().remove("read-write");
            return s;
        });
        await().atMost(FUNCTIONAL_BOUND)
                .untilAsserted(() -> assertThat(SecretData.text(secret("kv-auth-tokens"), "tokens")
                                .orElseThrow())
                        .contains("read-write " + next)
                        .doesNotContain(credentials.get("read-write"))
                        .contains("admin " + operatorToken));
        assertThat(SecretData.texts(secret("kv-auth"))).containsOnlyKeys("read-write.next", "read-only", "admin");
    }

    @Test
    void renewalAndCaReplacementWaitForEveryMemberAndRestartNoPod() {
        operator.create(cluster(s -> {}));
        awaitStatus(s -> assertThat(s.phase).isEqualTo(Phase.Ready));
        for (int i = 0; i < 3; i++) {
            member("kv-" + i);
        }
        var pods = podUids();
        var template = client.apps()
                .statefulSets()
                .inNamespace(ns)
                .withName(NAME)
                .get()
                .getSpec()
                .getTemplate();
        var first = status().tls;

        annotate(SecurityNames.RENEW_CERTIFICATE, "1");
        awaitStatus(s -> {
            assertThat(s.tls.certificateFingerprint).isNotEqualTo(first.certificateFingerprint);
            assertThat(s.tls.caFingerprint).as("a renewal keeps the CA").isEqualTo(first.caFingerprint);
            assertThat(s.tls.rotation).isEqualTo("Steady");
        });

        members.get("kv-2").freeze(); // a member whose kubelet has not delivered the new files yet
        annotate(SecurityNames.REPLACE_CA, "1");
        awaitStatus(s -> {
            assertThat(s.tls.rotation).isEqualTo("TrustingNewCa");
            assertThat(s.tls.message).contains("waiting for the members to trust the new CA: kv-2");
        });
        var trusting = secret("kv-member-tls");
        var trusted = Pem.readCertificates(SecretData.text(trusting, "ca.crt").orElseThrow());
        assertThat(trusted).hasSize(2);
        assertThat(Certificates.fingerprint(trusted.get(0))).isEqualTo(first.caFingerprint);
        var newCa = trusted.get(1);
        // However long kv-2 lags, the certificate is not re-issued by the new CA.
        await().during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(Certificates.fingerprint(
                                Pem.readCertificates(SecretData.text(secret("kv-member-tls"), "ca.crt")
                                                .orElseThrow())
                                        .get(0)))
                        .isEqualTo(first.caFingerprint));
        assertThat(status().tls.rotation).isEqualTo("TrustingNewCa");

        members.get("kv-2").thaw();
        awaitStatus(s -> {
            assertThat(s.tls.rotation).isEqualTo("Steady");
            assertThat(s.tls.caFingerprint).isEqualTo(Certificates.fingerprint(newCa));
        });
        var done = secret("kv-member-tls");
        assertThat(Pem.readCertificates(SecretData.text(done, "ca.crt").orElseThrow()))
                .containsExactly(newCa);
        assertThat(Certificates.signedBy(
                        Pem.readCertificates(SecretData.text(done, "tls.crt").orElseThrow())
                                .get(0),
                        newCa))
                .isTrue();
        // The operator records a transition's Event just after writing the status that shows it.
        awaitEvents(() -> assertThat(events().stream()
                        .filter(e -> e.getReason().equals("CertificateRotation"))
                        .map(Event::getMessage)
                        .map(m -> m.substring(0, m.indexOf(':'))))
                .containsExactlyInAnyOrder(
                        "Steady -> TrustingNewCa",
                        "TrustingNewCa -> Reissuing",
                        "Reissuing -> DroppingOldCa",
                        "DroppingOldCa -> Steady"));
        assertThat(podUids()).as("no pod restarted").isEqualTo(pods);
        assertThat(client.apps()
                        .statefulSets()
                        .inNamespace(ns)
                        .withName(NAME)
                        .get()
                        .getSpec()
                        .getTemplate())
                .as("the pod template did not change")
                .isEqualTo(template);
    }

    @Test
    void aUsersOwnSecretIsJudgedAndAWarningComesBeforeItExpires() {
        operator.create(cluster(s -> {
            s.tls = new TlsSpec();
            s.tls.mode = TlsMode.Secret;
            s.tls.secretName = "byo";
        }));
        awaitStatus(s -> assertThat(condition(s, "CertificatesValid")).isEqualTo("False/Missing"));
        assertThat(client.secrets().inNamespace(ns).withName("kv-ca").get())
                .as("no CA of the operator's")
                .isNull();
        var authority = new CertificateAuthority(new SecureRandom());
        var ca = authority.createCa("users-ca", Instant.now(), Duration.ofDays(400));
        String dns = "*.kv-headless." + ns + ".svc.cluster.local";

        putByo(ca, authority.issue(ca, "kv", List.of(dns), Instant.now(), Duration.ofDays(10)));
        awaitStatus(s -> {
            assertThat(condition(s, "CertificatesValid")).isEqualTo("False/ExpiresSoon");
            assertThat(s.tls.secretName).isEqualTo("byo");
        });
        awaitEvents(() -> assertThat(events()).anySatisfy(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getReason()).isEqualTo("CertificatesValid/ExpiresSoon");
            assertThat(e.getMessage()).contains("put a renewed certificate into Secret byo");
        }));
        putByo(ca, authority.issue(ca, "kv", List.of("*.other.example"), Instant.now(), Duration.ofDays(90)));
        awaitStatus(s -> assertThat(condition(s, "CertificatesValid")).isEqualTo("False/WrongName"));
        var good = authority.issue(ca, "kv", List.of(dns), Instant.now(), Duration.ofDays(90));
        putByo(ca, good);
        awaitStatus(s -> {
            assertThat(condition(s, "CertificatesValid")).isEqualTo("True/Valid");
            assertThat(s.tls.certificateFingerprint).isEqualTo(Certificates.fingerprint(good.certificate()));
            assertThat(s.tls.caFingerprint).isEqualTo(Certificates.fingerprint(ca.certificate()));
        });
    }

    @Test
    void certManagerIsOptionalAndUsedWhenThere() {
        operator.create(cluster(s -> {
            s.tls = new TlsSpec();
            s.tls.mode = TlsMode.CertManager;
            s.tls.issuerRef = new IssuerRef("team-ca", "ClusterIssuer", null);
        }));
        awaitStatus(s -> {
            assertThat(condition(s, "CertificatesValid")).isEqualTo("False/CertManagerUnavailable");
            assertThat(Conditions.find(s.conditions, "CertificatesValid")
                            .orElseThrow()
                            .getMessage())
                    .contains("cert-manager is not installed");
        });
        assertThat(client.apps().statefulSets().inNamespace(ns).withName(NAME).get())
                .as("the rest goes on")
                .isNotNull();

        var crd = client.getKubernetesSerialization()
                .unmarshal(
                        SecurityIT.class.getResourceAsStream("/cert-manager/certificates-crd.yaml"),
                        CustomResourceDefinition.class);
        client.resource(crd).forceConflicts().serverSideApply();
        client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName(crd.getMetadata().getName())
                .waitUntilCondition(
                        c -> c.getStatus() != null
                                && c.getStatus().getConditions() != null
                                && c.getStatus().getConditions().stream()
                                        .anyMatch(x -> x.getType().equals("Established")
                                                && x.getStatus().equals("True")),
                        60,
                        TimeUnit.SECONDS);
        var certificates = client.genericKubernetesResources(
                        CertManagerCertificate.API_VERSION, CertManagerCertificate.KIND)
                .inNamespace(ns); // the CRD is installed now: discovery finds the kind
        GenericKubernetesResource certificate = await().atMost(FUNCTIONAL_BOUND)
                .pollInterval(Duration.ofMillis(500))
                .until(
                        () -> {
                            annotate(
                                    "test/nudge",
                                    Instant.now().toString()); // unwatched: the operator looks every few minutes
                            return certificates.withName("kv-member-tls").get();
                        },
                        c -> c != null);
        @SuppressWarnings("unchecked")
        var spec = (Map<String, Object>) certificate.getAdditionalProperties().get("spec");
        assertThat(spec)
                .containsEntry("secretName", "kv-member-tls")
                .containsEntry(
                        "issuerRef", Map.of("name", "team-ca", "kind", "ClusterIssuer", "group", "cert-manager.io"));

        // Playing cert-manager: it writes the Secret.
        var authority = new CertificateAuthority(new SecureRandom());
        var ca = authority.createCa("issuer", Instant.now(), Duration.ofDays(400));
        var issued = authority.issue(
                ca, "kv", List.of("*.kv-headless." + ns + ".svc.cluster.local"), Instant.now(), Duration.ofDays(90));
        client.resource(tlsSecret("kv-member-tls", ca, issued)).create();
        await().atMost(FUNCTIONAL_BOUND).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            annotate("test/nudge", Instant.now().toString());
            assertThat(condition(status(), "CertificatesValid")).isEqualTo("True/Valid");
        });
        client.resource(crd).delete();
    }

    @Test
    void eachPartTurnsOff() {
        operator.create(cluster(s -> {}));
        awaitStatus(s -> assertThat(s.phase).isEqualTo(Phase.Ready));
        assertThat(client.network()
                        .v1()
                        .networkPolicies()
                        .inNamespace(ns)
                        .withName(NAME)
                        .get())
                .isNotNull();
        client.resources(DhtCluster.class).inNamespace(ns).withName(NAME).edit(c -> {
            c.getMetadata().setResourceVersion(null); // no conflict with the operator's status writes
            c.getSpec().network = new NetworkSpec();
            c.getSpec().network.policies = false;
            c.getSpec().tls = new TlsSpec();
            c.getSpec().tls.mode = TlsMode.Disabled;
            c.getSpec().tls.client = new ClientTlsSpec();
            c.getSpec().tls.client.enabled = false;
            c.getSpec().auth = new AuthSpec();
            c.getSpec().auth.enabled = false;
            return c;
        });
        awaitStatus(s -> {
            assertThat(s.tls.mode).isEqualTo(TlsMode.Disabled);
            assertThat(s.tls.client.enabled).isFalse();
            assertThat(Conditions.find(s.conditions, "ClientCertificatesValid")).isEmpty();
            assertThat(Conditions.find(s.conditions, "CertificatesValid")).isEmpty();
            assertThat(Conditions.find(s.conditions, "CredentialsReady")).isEmpty();
        });
        await().atMost(FUNCTIONAL_BOUND)
                .untilAsserted(() -> assertThat(client.network()
                                .v1()
                                .networkPolicies()
                                .inNamespace(ns)
                                .withName(NAME)
                                .get())
                        .isNull());
    }

    @Test
    void theClientPortServesTlsWithTheClientCaDhtUsersGetCertificatesAndTheOperatorCallsWithItsOwn() throws Exception {
        operator.create(cluster(s -> {}));
        var user = new DhtUser();
        user.getMetadata().setName("reporting");
        user.getMetadata().setNamespace(ns);
        user.getSpec().cluster = NAME;
        user.getSpec().scope = "read-only";
        client.resource(user).create();
        awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.tls.client.enabled).isTrue();
            assertThat(s.tls.client.reason).isEqualTo(SecurityModel.DEFAULT_ON);
            assertThat(s.tls.client.clientAuth).isEqualTo(ClientAuthMode.Optional);
            assertThat(s.tls.client.rotation).isEqualTo("Steady");
            assertThat(condition(s, "ClientCertificatesValid")).isEqualTo("True/Valid");
        });
        var ca = Pem.readCertificates(
                        SecretData.text(secret("kv-client-ca"), "ca.crt").orElseThrow())
                .get(0);
        assertThat(ca)
                .as("its own CA: a client certificate must never be a member's")
                .isNotEqualTo(Pem.readCertificates(
                                SecretData.text(secret("kv-ca"), "ca.crt").orElseThrow())
                        .get(0));
        var served = Pem.readCertificates(
                        SecretData.text(secret("kv-client-tls"), "tls.crt").orElseThrow())
                .get(0);
        assertThat(Certificates.signedBy(served, ca)).isTrue();
        for (String host : List.of(
                "kv",
                "kv." + ns,
                "kv." + ns + ".svc",
                "kv." + ns + ".svc.cluster.local",
                "kv-2.kv-headless." + ns + ".svc",
                "kv-0.kv-headless." + ns + ".svc.cluster.local",
                "localhost")) {
            assertThat(Certificates.covers(served, host)).as(host).isTrue();
        }
        var bundle =
                client.configMaps().inNamespace(ns).withName("kv-client-ca.crt").get();
        assertThat(Pem.readCertificates(bundle.getData().get("ca.crt"))).containsExactly(ca);
        assertThat(status().tls.client.caConfigMap).isEqualTo("kv-client-ca.crt");

        // what the members run with: the Secret, the options, probes on the plaintext metrics port
        var pod = client.apps()
                .statefulSets()
                .inNamespace(ns)
                .withName(NAME)
                .get()
                .getSpec()
                .getTemplate()
                .getSpec();
        assertThat(pod.getVolumes())
                .anySatisfy(v -> assertThat(v.getSecret())
                        .isNotNull()
                        .satisfies(secret -> assertThat(secret.getSecretName()).isEqualTo("kv-client-tls")));
        var env =
                client.configMaps().inNamespace(ns).withName("kv-config").get().getData();
        assertThat(env)
                .containsEntry("DHT_CLIENT_TLS_CERT", "/etc/dht/client-tls/tls.crt")
                .containsEntry("DHT_CLIENT_TLS_CA", "/etc/dht/client-tls/ca.crt")
                .containsEntry("DHT_CLIENT_AUTH", "optional")
                .containsEntry("DHT_METRICS_PORT", "9080");
        assertThat(pod.getContainers()
                        .get(0)
                        .getReadinessProbe()
                        .getHttpGet()
                        .getPort()
                        .getStrVal())
                .isEqualTo("metrics");

        // the DhtUser's certificate: its scope in O, its name in CN, of the client CA, with the bundle
        await().atMost(FUNCTIONAL_BOUND).untilAsserted(() -> {
            var u = client.resources(DhtUser.class)
                    .inNamespace(ns)
                    .withName("reporting")
                    .get();
            assertThat(u.getStatus()).isNotNull();
            assertThat(u.getStatus().conditions)
                    .anySatisfy(c -> assertThat(c.getStatus()).isEqualTo("True"));
            assertThat(u.getStatus().subject).isEqualTo("CN=reporting,O=read-only");
        });
        var userSecret = secret("reporting-dht-client");
        var userCert = Pem.readCertificates(
                        SecretData.text(userSecret, "tls.crt").orElseThrow())
                .get(0);
        assertThat(Certificates.signedBy(userCert, ca)).isTrue();
        assertThat(userCert.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
        assertThat(Pem.readCertificates(SecretData.text(userSecret, "ca.crt").orElseThrow()))
                .containsExactly(ca);
        assertThat(userSecret.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(o -> assertThat(o.getKind()).isEqualTo("DhtUser"));

        // the operator's own admin calls: over TLS to a client port that wants a certificate, with its own (O=admin)
        var credentials = dev.dht.operator.nodeadmin.OperatorAccess.read(client, ns, NAME);
        assertThat(credentials.tls()).isPresent();
        var answer = new HttpMemberAdmin()
                .authenticated(credentials)
                .call(
                        "http://127.0.0.1:" + clientPort("kv-0").port(),
                        "GET",
                        "/v0/admin/repair",
                        null,
                        Duration.ofSeconds(10))
                .get(30, TimeUnit.SECONDS);
        assertThat(answer.status()).as(String.valueOf(answer)).isEqualTo(200);
        assertThat(clientPort("kv-0").lastClient()).isEqualTo("CN=dht-operator,O=admin");
    }

    @Test
    void aClientCaReplacementWaitsForEveryClientPortAndTheReloadGraceAtEachPhase() {
        operator.create(cluster(s -> {
            s.tls = new TlsSpec();
            s.tls.client = new ClientTlsSpec();
            s.tls.client.reloadGrace = "4s";
        }));
        var user = new DhtUser();
        user.getMetadata().setName("app");
        user.getMetadata().setNamespace(ns);
        user.getSpec().cluster = NAME;
        user.getSpec().scope = "read-write";
        client.resource(user).create();
        awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.tls.client.rotation).isEqualTo("Steady");
        });
        for (int i = 0; i < 3; i++) {
            clientPort("kv-" + i);
            member("kv-" + i);
        }
        var oldCa = status().tls.client.caFingerprint;
        clientPorts.get("kv-1").freeze(); // its kubelet has not delivered the new files yet
        annotate(SecurityNames.REPLACE_CA, "1");
        awaitStatus(s -> {
            assertThat(s.tls.client.rotation).isEqualTo("TrustingNewCa");
            assertThat(s.tls.client.message).contains("waiting for the members to trust the new CA: kv-1");
        });
        var bundle = Pem.readCertificates(client.configMaps()
                .inNamespace(ns)
                .withName("kv-client-ca.crt")
                .get()
                .getData()
                .get("ca.crt"));
        assertThat(bundle).as("clients are given both CAs first").hasSize(2);
        assertThat(Pem.readCertificates(
                        SecretData.text(secret("app-dht-client"), "ca.crt").orElseThrow()))
                .isEqualTo(bundle);
        var trustedAt = Instant.parse(
                secret("kv-client-tls").getMetadata().getAnnotations().get("dht.dev/written-at"));
        clientPorts.get("kv-1").thaw();
        awaitStatus(s -> assertThat(s.tls.client.rotation).isEqualTo("Reissuing"));
        var reissuedAt = Instant.parse(
                secret("kv-client-tls").getMetadata().getAnnotations().get("dht.dev/written-at"));
        assertThat(Duration.between(trustedAt, reissuedAt))
                .as("the clients' grace after the members were ready")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(4));
        var newCa = bundle.get(1);
        await().atMost(FUNCTIONAL_BOUND)
                .untilAsserted(() -> assertThat(Certificates.signedBy(
                                Pem.readCertificates(SecretData.text(secret("app-dht-client"), "tls.crt")
                                                .orElseThrow())
                                        .get(0),
                                newCa))
                        .as("the user's certificate follows the members' to the new CA")
                        .isTrue());
        awaitStatus(s -> {
            assertThat(s.tls.client.rotation).isEqualTo("Steady");
            assertThat(s.tls.client.caFingerprint)
                    .isEqualTo(Certificates.fingerprint(newCa))
                    .isNotEqualTo(oldCa);
        });
        var droppedAt = Instant.parse(
                secret("kv-client-tls").getMetadata().getAnnotations().get("dht.dev/written-at"));
        assertThat(Duration.between(reissuedAt, droppedAt)).isGreaterThanOrEqualTo(Duration.ofSeconds(4));
        assertThat(Pem.readCertificates(client.configMaps()
                        .inNamespace(ns)
                        .withName("kv-client-ca.crt")
                        .get()
                        .getData()
                        .get("ca.crt")))
                .containsExactly(newCa);
        assertThat(Pem.readCertificates(
                        SecretData.text(secret("app-dht-client"), "ca.crt").orElseThrow()))
                .containsExactly(newCa);
    }

    @Test
    void aClusterWhoseMembersRanWithoutClientTlsKeepsItOffUntilItsSpecTurnsItOn() {
        // As a cluster made before client TLS was the default: its members run without it...
        operator.create(cluster(s -> {
            s.tls = new TlsSpec();
            s.tls.client = new ClientTlsSpec();
            s.tls.client.enabled = false;
        }));
        awaitStatus(s -> assertThat(s.phase).isEqualTo(Phase.Ready));
        // ... and after the upgrade its spec says nothing: the operator must not move its clients to TLS by itself.
        editSpec(c -> c.getSpec().tls.client.enabled = null);
        awaitStatus(s -> {
            assertThat(s.observedGeneration)
                    .isEqualTo(
                            operator.get(DhtCluster.class, NAME).getMetadata().getGeneration());
            assertThat(s.tls.client.enabled).isFalse();
            assertThat(s.tls.client.reason).contains("ran without client TLS").contains("spec.tls.client.enabled");
        });
        assertThat(client.configMaps()
                        .inNamespace(ns)
                        .withName("kv-config")
                        .get()
                        .getData())
                .doesNotContainKey("DHT_CLIENT_TLS_CERT");
        // Asked for: the members get it (the pods roll), and it stays on when the spec falls silent again.
        editSpec(c -> c.getSpec().tls.client.enabled = true);
        awaitStatus(s -> assertThat(s.tls.client.enabled).isTrue());
        await().atMost(FUNCTIONAL_BOUND)
                .untilAsserted(() -> assertThat(client.configMaps()
                                .inNamespace(ns)
                                .withName("kv-config")
                                .get()
                                .getData())
                        .containsKey("DHT_CLIENT_TLS_CERT"));
        editSpec(c -> c.getSpec().tls.client.enabled = null);
        awaitStatus(s -> {
            assertThat(s.observedGeneration)
                    .isEqualTo(
                            operator.get(DhtCluster.class, NAME).getMetadata().getGeneration());
            assertThat(s.tls.client.enabled).isTrue();
            assertThat(s.tls.client.reason).isEqualTo(SecurityModel.DEFAULT_ON);
        });
    }

    void editSpec(Consumer<DhtCluster> change) {
        client.resources(DhtCluster.class).inNamespace(ns).withName(NAME).edit(c -> {
            c.getMetadata().setResourceVersion(null); // no conflict with the operator's status writes
            change.accept(c);
            return c;
        });
    }

    // ---------------------------------------------------------------------------------------------------------

    DhtCluster cluster(Consumer<DhtClusterSpec> change) {
        var cluster = new DhtCluster();
        cluster.getMetadata().setName(NAME);
        cluster.getMetadata().setNamespace(ns);
        cluster.setSpec(new DhtClusterSpec());
        cluster.getSpec().replicas = 3;
        change.accept(cluster.getSpec());
        return cluster;
    }

    /** kubectl annotate: a merge patch, no resourceVersion (the operator writes the status meanwhile). */
    void annotate(String key, String value) {
        client.resources(DhtCluster.class)
                .inNamespace(ns)
                .withName(NAME)
                .patch(
                        io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                        client.getKubernetesSerialization()
                                .asJson(Map.of("metadata", Map.of("annotations", Map.of(key, value)))));
    }

    void putByo(Credential ca, Credential member) {
        client.resource(tlsSecret("byo", ca, member)).forceConflicts().serverSideApply();
        annotate("test/nudge", Instant.now().toString()); // unwatched: the operator looks every few minutes
    }

    Secret tlsSecret(String name, Credential ca, Credential member) {
        return new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns)
                .endMetadata()
                .withType("kubernetes.io/tls")
                .withData(SecretData.encode(Map.of(
                        "tls.crt", member.certificatePem(), "tls.key", member.keyPem(), "ca.crt", ca.certificatePem())))
                .build();
    }

    Secret secret(String name) {
        var secret = client.secrets().inNamespace(ns).withName(name).get();
        assertThat(secret).as("Secret " + name).isNotNull();
        return secret;
    }

    DhtClusterStatus status() {
        return operator.get(DhtCluster.class, NAME).getStatus();
    }

    /** Events come just after the status write that shows their transition: wait for them as for a status. */
    void awaitEvents(ThrowingRunnable check) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(check);
    }

    void awaitStatus(Consumer<DhtClusterStatus> check) {
        await().atMost(FUNCTIONAL_BOUND).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            var status = status();
            assertThat(status).isNotNull();
            assertThat(status.tls).isNotNull();
            check.accept(status);
        });
    }

    static String condition(DhtClusterStatus status, String type) {
        return Conditions.find(status.conditions, type)
                .map(c -> c.getStatus() + "/" + c.getReason())
                .orElse("none");
    }

    Map<String, String> podUids() {
        return client.pods().inNamespace(ns).withLabels(Labels.selector(NAME)).list().getItems().stream()
                .collect(Collectors.toMap(
                        p -> p.getMetadata().getName(),
                        (Pod p) -> p.getMetadata().getUid()));
    }

    List<Event> events() {
        return client.v1().events().inNamespace(ns).list().getItems();
    }
}
