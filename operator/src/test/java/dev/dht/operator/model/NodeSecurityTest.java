package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.AuthSpec;
import dev.dht.operator.api.v1alpha1.ClientAuthMode;
import dev.dht.operator.api.v1alpha1.ClientTlsSpec;
import dev.dht.operator.api.v1alpha1.ProfilerSpec;
import dev.dht.operator.api.v1alpha1.TlsMode;
import dev.dht.operator.api.v1alpha1.TlsSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import org.junit.jupiter.api.Test;

/** The pods get the Secrets the security settings made, as the node contract says, and nothing when a part is off. */
class NodeSecurityTest {
    @Test
    void byDefaultTheNodeMountsItsCertificateAndTheTokensFileAndExposesTheMemberPort() {
        var desired = Clusters.desired(s -> {
            s.profiler = new ProfilerSpec();
            s.profiler.enabled = true;
        });
        PodSpec pod = desired.statefulSet().getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getName().equals("member-tls"))
                .singleElement()
                .satisfies(v -> {
                    assertThat(v.getSecret().getSecretName()).isEqualTo("kv-member-tls");
                    assertThat(v.getSecret().getDefaultMode()).isEqualTo(0440);
                    assertThat(v.getSecret().getItems())
                            .extracting(i -> i.getKey())
                            .containsExactly("tls.crt", "tls.key", "ca.crt");
                });
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getName().equals("auth"))
                .singleElement()
                .satisfies(v -> {
                    assertThat(v.getSecret().getSecretName()).isEqualTo("kv-auth-tokens");
                    assertThat(v.getSecret().getItems())
                            .extracting(i -> i.getKey())
                            .as("not the operator's own token")
                            .containsExactly("tokens");
                });
        Container node = pod.getContainers().get(0);
        assertThat(node.getPorts())
                .extracting(p -> p.getName() + ":" + p.getContainerPort())
                .containsExactly("http:8080", "member:18080", "metrics:9080");
        assertThat(node.getVolumeMounts())
                .filteredOn(m -> m.getMountPath().startsWith("/etc/dht/"))
                .extracting(m -> m.getName() + "@" + m.getMountPath() + (m.getReadOnly() ? " ro" : ""))
                .containsExactly(
                        "topology@/etc/dht/topology ro",
                        "member-tls@/etc/dht/member-tls ro",
                        "client-tls@/etc/dht/client-tls ro",
                        "auth@/etc/dht/auth ro");
        Container sidecar = pod.getContainers().get(1);
        assertThat(sidecar.getArgs())
                .containsSubsequence("--tokens", "/etc/dht/auth/tokens")
                .containsSubsequence("--node", "https://127.0.0.1:8080")
                .containsSubsequence("--tls", "/etc/dht/client-tls");
        assertThat(sidecar.getVolumeMounts())
                .extracting(m -> m.getMountPath())
                .containsExactly("/etc/dht/auth", "/etc/dht/client-tls");
        // Probes stay open, on the plaintext metrics port: a probe presents no client certificate.
        assertThat(node.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/v0/status");
        assertThat(node.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("metrics");
        assertThat(node.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("metrics");
        assertThat(node.getStartupProbe().getHttpGet().getScheme()).isEqualTo("HTTP");
    }

    @Test
    void byDefaultTheClientPortServesTlsWithOptionalClientCertificates() {
        var desired = Clusters.desired(s -> {});
        var pod = desired.statefulSet().getSpec().getTemplate();
        assertThat(pod.getSpec().getVolumes())
                .filteredOn(v -> v.getName().equals("client-tls"))
                .singleElement()
                .satisfies(v -> {
                    assertThat(v.getSecret().getSecretName()).isEqualTo("kv-client-tls");
                    assertThat(v.getSecret().getDefaultMode()).isEqualTo(0440);
                    assertThat(v.getSecret().getItems())
                            .extracting(i -> i.getKey())
                            .containsExactly("tls.crt", "tls.key", "ca.crt");
                });
        assertThat(desired.config().getData())
                .containsEntry("DHT_CLIENT_TLS_CERT", "/etc/dht/client-tls/tls.crt")
                .containsEntry("DHT_CLIENT_TLS_KEY", "/etc/dht/client-tls/tls.key")
                .containsEntry("DHT_CLIENT_TLS_CA", "/etc/dht/client-tls/ca.crt")
                .containsEntry("DHT_CLIENT_AUTH", "optional")
                .containsEntry("DHT_METRICS_PORT", "9080");
        assertThat(pod.getMetadata().getLabels()).containsEntry("dht.dev/client-tls", "true");
    }

    @Test
    void clientCertificatesRequiredOrNoneAndClientTlsOff() {
        var required = Clusters.desired(s -> {
            s.tls = new TlsSpec();
            s.tls.client = new ClientTlsSpec();
            s.tls.client.clientAuth = ClientAuthMode.Required;
        });
        assertThat(required.config().getData()).containsEntry("DHT_CLIENT_AUTH", "required");
        var none = Clusters.desired(s -> {
            s.tls = new TlsSpec();
            s.tls.client = new ClientTlsSpec();
            s.tls.client.clientAuth = ClientAuthMode.None;
        });
        assertThat(none.config().getData())
                .containsKey("DHT_CLIENT_TLS_CERT")
                .doesNotContainKeys("DHT_CLIENT_TLS_CA", "DHT_CLIENT_AUTH");
        var off = Clusters.desired(s -> {
            s.tls = new TlsSpec();
            s.tls.client = new ClientTlsSpec();
            s.tls.client.enabled = false;
            s.profiler = new ProfilerSpec();
            s.profiler.enabled = true;
        });
        var pod = off.statefulSet().getSpec().getTemplate();
        assertThat(off.config().getData()).doesNotContainKeys("DHT_CLIENT_TLS_CERT", "DHT_METRICS_PORT");
        assertThat(pod.getSpec().getVolumes()).extracting(v -> v.getName()).doesNotContain("client-tls");
        assertThat(pod.getMetadata().getLabels()).doesNotContainKey("dht.dev/client-tls");
        var node = pod.getSpec().getContainers().get(0);
        assertThat(node.getPorts()).extracting(p -> p.getName()).containsExactly("http", "member");
        assertThat(node.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
        assertThat(pod.getSpec().getContainers().get(1).getArgs())
                .containsSubsequence("--node", "http://127.0.0.1:8080")
                .doesNotContain("--tls");
    }

    @Test
    void withTlsAndTokensOffTheNodeRunsItsMemberPortInPlaintextAndHasNoSecrets() {
        var desired = Clusters.desired(s -> {
            s.tls = new TlsSpec();
            s.tls.mode = TlsMode.Disabled;
            s.auth = new AuthSpec();
            s.auth.enabled = false;
            s.profiler = new ProfilerSpec();
            s.profiler.enabled = true;
        });
        var pod = desired.statefulSet().getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes()).extracting(v -> v.getName()).doesNotContain("member-tls", "auth");
        assertThat(desired.config().getData())
                .containsEntry("DHT_MEMBER_INSECURE", "true")
                .doesNotContainKeys("DHT_MEMBER_TLS_CERT", "DHT_AUTH_TOKENS");
        assertThat(pod.getContainers().get(1).getArgs()).doesNotContain("--tokens");
    }

    @Test
    void aUsersOwnSecretIsWhatTheNodesMount() {
        var pod = Clusters.desired(s -> {
                    s.tls = new TlsSpec();
                    s.tls.mode = TlsMode.Secret;
                    s.tls.secretName = "my-certs";
                })
                .statefulSet()
                .getSpec()
                .getTemplate()
                .getSpec();
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getName().equals("member-tls"))
                .singleElement()
                .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("my-certs"));
    }
}
