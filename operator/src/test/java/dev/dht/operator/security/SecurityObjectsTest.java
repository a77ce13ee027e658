package dev.dht.operator.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.IssuerRef;
import dev.dht.operator.api.v1alpha1.NetworkSpec;
import dev.dht.operator.api.v1alpha1.ProfilerSpec;
import dev.dht.operator.api.v1alpha1.TlsMode;
import dev.dht.operator.api.v1alpha1.TlsSpec;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Clusters;
import dev.dht.operator.model.Hashing;
import dev.dht.operator.model.Platform;
import dev.dht.operator.security.auth.AuthSecrets;
import dev.dht.operator.security.auth.AuthStatuses;
import dev.dht.operator.security.auth.Tokens;
import dev.dht.operator.security.network.ClusterNetworkPolicy;
import dev.dht.operator.security.tls.CertManagerCertificate;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The NetworkPolicy, the token Secrets and the cert-manager Certificate a cluster gets. */
class SecurityObjectsTest {
    static final Platform.OperatorPeer OPERATOR = new Platform.OperatorPeer(
            "dht-system",
            Map.of("app.kubernetes.io/name", "dht-operator", "app.kubernetes.io/instance", "dht-operator"));

    @Test
    void theMemberPortAdmitsOnlyMembersAndTheOperatorTheClientPortEveryone() {
        var cluster = Clusters.cluster(s -> {});
        var policy = ClusterNetworkPolicy.networkPolicy(
                cluster, ClusterModel.from(cluster, Clusters.PLATFORM), Optional.of(OPERATOR));
        assertThat(policy.getMetadata().getName()).isEqualTo("kv");
        assertThat(policy.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(o -> assertThat(o.getUid()).isEqualTo("0f1e2d3c-uid"));
        assertThat(Hashing.stampOf(policy)).isNotNull();
        var spec = policy.getSpec();
        assertThat(spec.getPodSelector().getMatchLabels())
                .isEqualTo(Map.of(
                        "app.kubernetes.io/name",
                        "dht",
                        "app.kubernetes.io/instance",
                        "kv",
                        "app.kubernetes.io/component",
                        "node"));
        assertThat(spec.getPolicyTypes()).containsExactly("Ingress");
        assertThat(spec.getIngress())
                .as("member port, client port, metrics port")
                .hasSize(3);
        var member = rule(spec.getIngress(), 18080);
        assertThat(member.getFrom()).hasSize(2);
        assertThat(member.getFrom().get(0).getPodSelector().getMatchLabels())
                .isEqualTo(spec.getPodSelector().getMatchLabels());
        assertThat(member.getFrom().get(0).getNamespaceSelector())
                .as("same namespace only")
                .isNull();
        assertThat(member.getFrom().get(1).getNamespaceSelector().getMatchLabels())
                .isEqualTo(Map.of("kubernetes.io/metadata.name", "dht-system"));
        assertThat(member.getFrom().get(1).getPodSelector().getMatchLabels()).isEqualTo(OPERATOR.podLabels());
        assertThat(rule(spec.getIngress(), 8080).getFrom())
                .as("no peers: everyone")
                .isNullOrEmpty();
        assertThat(rule(spec.getIngress(), 9080).getFrom())
                .as("the metrics port as the client port")
                .isNullOrEmpty();
    }

    @Test
    void clientPeersNarrowTheClientPortTheOperatorStaysAndTheProfilerPortIsTheRunnersOnly() {
        var cluster = Clusters.cluster(s -> {
            s.network = new NetworkSpec();
            s.network.clientPeers = List.of(new NetworkPolicyPeerBuilder()
                    .withPodSelector(new LabelSelectorBuilder()
                            .withMatchLabels(Map.of("role", "app"))
                            .build())
                    .build());
            s.profiler = new ProfilerSpec();
            s.profiler.enabled = true;
        });
        var spec = ClusterNetworkPolicy.networkPolicy(
                        cluster, ClusterModel.from(cluster, Clusters.PLATFORM), Optional.of(OPERATOR))
                .getSpec();
        var client = rule(spec.getIngress(), 8080);
        assertThat(client.getFrom()).hasSize(2);
        assertThat(client.getFrom().get(0).getPodSelector().getMatchLabels()).isEqualTo(Map.of("role", "app"));
        assertThat(client.getFrom().get(1).getPodSelector().getMatchLabels()).isEqualTo(OPERATOR.podLabels());
        assertThat(rule(spec.getIngress(), 9080).getFrom())
                .as("the metrics port: the client port's peers")
                .isEqualTo(client.getFrom());
        var profiler = rule(spec.getIngress(), 8079);
        assertThat(profiler.getFrom()).singleElement().satisfies(p -> {
            assertThat(p.getPodSelector().getMatchLabels())
                    .isEqualTo(Map.of("app.kubernetes.io/component", "benchmark"));
            assertThat(p.getPodSelector().getMatchExpressions())
                    .singleElement()
                    .satisfies(
                            e -> assertThat(e.getKey() + " " + e.getOperator()).isEqualTo("dht.dev/benchmark Exists"));
            assertThat(p.getNamespaceSelector()).isNull();
        });
        // An operator outside the cluster (no labels known) is simply not listed.
        var outside = ClusterNetworkPolicy.networkPolicy(
                        cluster, ClusterModel.from(cluster, Clusters.PLATFORM), Optional.empty())
                .getSpec();
        assertThat(rule(outside.getIngress(), 18080).getFrom()).hasSize(1);
    }

    @Test
    void theTokensFileHoldsEveryUsableCredentialAndTheOperatorsOwnToken() {
        var random = new SecureRandom();
        String rw = Tokens.generate(random);
        String previous = Tokens.generate(random);
        assertThat(rw).hasSize(43).matches("[A-Za-z0-9_-]+");
        var credentials = Tokens.read(Map.of(
                "read-write",
                rw,
                "read-write.previous",
                previous,
                "read-only",
                "short",
                "writer",
                rw,
                "admin",
                "has space in it!!"));
        assertThat(credentials.tokens())
                .extracting(Tokens.Token::key)
                .containsExactly("read-write", "read-write.previous");
        assertThat(credentials.ignored()).containsOnlyKeys("read-only", "writer", "admin");
        var cluster = Clusters.cluster(s -> {});
        var auth = ClusterModel.from(cluster, Clusters.PLATFORM).security().auth();
        var secret = AuthSecrets.tokens(cluster, auth, credentials, "operator-token-0123456789");
        assertThat(secret.getMetadata().getName()).isEqualTo("kv-auth-tokens");
        String file = SecretData.text(secret, "tokens").orElseThrow();
        assertThat(file.lines().filter(l -> !l.startsWith("#")).toList())
                .containsExactly("read-write " + rw, "read-write " + previous, "admin operator-token-0123456789");
        assertThat(SecretData.text(secret, "operator")).contains("operator-token-0123456789");

        var verdict = AuthStatuses.verdict(auth, Optional.of(credentials));
        assertThat(verdict.ready()).isTrue();
        assertThat(verdict.message())
                .startsWith("2 read-write, 0 read-only and 0 admin token(s) in Secret kv-auth")
                .contains("ignored keys: admin (has characters")
                .doesNotContain(rw);
        assertThat(AuthStatuses.verdict(auth, Optional.empty()).reason()).isEqualTo("Missing");
        assertThat(AuthStatuses.verdict(auth, Optional.of(Tokens.read(Map.of())))
                        .reason())
                .isEqualTo("NoTokens");
    }

    @Test
    void certManagerGetsACertificateWithPkcs8KeysForBothEnds() {
        var cluster = Clusters.cluster(s -> {
            s.tls = new TlsSpec();
            s.tls.mode = TlsMode.CertManager;
            s.tls.issuerRef = new IssuerRef("ca-issuer", "ClusterIssuer", null);
        });
        var tls = ClusterModel.from(cluster, Clusters.PLATFORM).security().tls();
        var certificate = CertManagerCertificate.certificate(cluster, tls);
        assertThat(certificate.getApiVersion()).isEqualTo("cert-manager.io/v1");
        assertThat(certificate.getKind()).isEqualTo("Certificate");
        @SuppressWarnings("unchecked")
        var spec = (Map<String, Object>) certificate.getAdditionalProperties().get("spec");
        assertThat(spec)
                .containsEntry("secretName", "kv-member-tls")
                .containsEntry("dnsNames", List.of("*.kv-headless.prod.svc.cluster.local"))
                .containsEntry("duration", "2160h")
                .containsEntry("renewBefore", "720h")
                .containsEntry("usages", List.of("digital signature", "key encipherment", "server auth", "client auth"))
                .containsEntry(
                        "issuerRef", Map.of("name", "ca-issuer", "kind", "ClusterIssuer", "group", "cert-manager.io"));
        assertThat(spec.get("privateKey"))
                .isEqualTo(Map.of("algorithm", "ECDSA", "size", 256, "encoding", "PKCS8", "rotationPolicy", "Always"));
    }

    private static NetworkPolicyIngressRule rule(List<NetworkPolicyIngressRule> rules, int port) {
        return rules.stream()
                .filter(r -> r.getPorts().get(0).getPort().getIntVal() == port)
                .findFirst()
                .orElseThrow();
    }
}
