package dev.dht.operator.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.operator.api.v1alpha1.AuthSpec;
import dev.dht.operator.api.v1alpha1.ClientAuthMode;
import dev.dht.operator.api.v1alpha1.ClientTlsIssuer;
import dev.dht.operator.api.v1alpha1.ClientTlsSpec;
import dev.dht.operator.api.v1alpha1.IssuerRef;
import dev.dht.operator.api.v1alpha1.NetworkSpec;
import dev.dht.operator.api.v1alpha1.TlsMode;
import dev.dht.operator.api.v1alpha1.TlsSpec;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Clusters;
import dev.dht.operator.model.InvalidSpecException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Secure by default: a spec that says nothing gets TLS by the operator's CA, tokens and a NetworkPolicy. */
class SecurityModelTest {
    @Test
    void aSpecWithoutSecuritySettingsGetsAllThree() {
        var security =
                ClusterModel.from(Clusters.cluster(s -> {}), Clusters.PLATFORM).security();
        var tls = security.tls();
        assertThat(tls.mode()).isEqualTo(TlsMode.Operator);
        assertThat(tls.enabled()).isTrue();
        assertThat(tls.secretName()).isEqualTo("kv-member-tls");
        assertThat(tls.memberDnsName()).isEqualTo("*.kv-headless.prod.svc.cluster.local");
        assertThat(tls.certificateDuration()).isEqualTo(Duration.ofDays(90));
        assertThat(tls.renewBefore()).isEqualTo(Duration.ofDays(30));
        assertThat(tls.caDuration()).isEqualTo(Duration.ofDays(365));
        assertThat(tls.caRenewBefore()).isEqualTo(Duration.ofDays(30));
        assertThat(security.auth()).isEqualTo(new SecurityModel.Auth(true, "kv-auth", true, "kv-auth-tokens"));
        assertThat(security.network().policies()).isTrue();
        assertThat(security.network().clientPeers()).isEmpty();
    }

    @Test
    void theClientPortHasTlsForANewClusterAndForOneWhoseMembersServeItButNotForOneWhoseMembersRanWithout() {
        var cluster = Clusters.cluster(s -> {});
        var fresh = ClusterModel.from(cluster, Clusters.PLATFORM, Optional.empty())
                .security()
                .clientTls();
        assertThat(fresh.enabled()).isTrue();
        assertThat(fresh.reason()).isEqualTo(SecurityModel.DEFAULT_ON);
        assertThat(fresh.clientAuth()).isEqualTo(ClientAuthMode.Optional);
        assertThat(fresh.issuer()).isEqualTo(ClientTlsIssuer.Operator);
        assertThat(fresh.caSecret()).isEqualTo("kv-client-ca");
        assertThat(fresh.secretName()).isEqualTo("kv-client-tls");
        assertThat(fresh.caConfigMap()).isEqualTo("kv-client-ca.crt");
        assertThat(fresh.dnsNames())
                .containsExactly(
                        "kv",
                        "kv.prod",
                        "kv.prod.svc",
                        "kv.prod.svc.cluster.local",
                        "*.kv-headless.prod.svc",
                        "*.kv-headless.prod.svc.cluster.local",
                        "localhost");
        assertThat(fresh.ipAddresses()).containsExactly("127.0.0.1");
        assertThat(fresh.phaseGrace()).isEqualTo(Duration.ofMinutes(10));
        assertThat(fresh.certificateDuration()).isEqualTo(Duration.ofDays(90));
        // an operator upgrade: the members run without client TLS and the spec says nothing
        var old = ClusterModel.from(cluster, Clusters.PLATFORM, Optional.of(false))
                .security()
                .clientTls();
        assertThat(old.enabled()).isFalse();
        assertThat(old.reason()).contains("ran without client TLS").contains("spec.tls.client.enabled");
        assertThat(ClusterModel.from(cluster, Clusters.PLATFORM, Optional.of(true))
                        .security()
                        .clientTls()
                        .enabled())
                .as("once on, it stays on")
                .isTrue();
        // what the spec says wins either way
        var asked = Clusters.cluster(s -> {
            s.tls = new TlsSpec();
            s.tls.client = new ClientTlsSpec();
            s.tls.client.enabled = true;
            s.tls.client.reloadGrace = "90s";
        });
        var on = ClusterModel.from(asked, Clusters.PLATFORM, Optional.of(false))
                .security()
                .clientTls();
        assertThat(on.enabled()).isTrue();
        assertThat(on.reason()).isEqualTo("spec.tls.client.enabled is true");
        assertThat(on.phaseGrace()).isEqualTo(Duration.ofSeconds(90));
        var refused = Clusters.cluster(s -> {
            s.tls = new TlsSpec();
            s.tls.client = new ClientTlsSpec();
            s.tls.client.enabled = false;
        });
        assertThat(ClusterModel.from(refused, Clusters.PLATFORM, Optional.empty())
                        .security()
                        .clientTls()
                        .enabled())
                .isFalse();
        assertThatThrownBy(() -> ClusterModel.from(
                        Clusters.cluster(s -> {
                            s.tls = new TlsSpec();
                            s.tls.client = new ClientTlsSpec();
                            s.tls.client.issuer = ClientTlsIssuer.CertManager;
                        }),
                        Clusters.PLATFORM))
                .isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("spec.tls.client.issuerRef");
    }

    @Test
    void eachPartCanBeTurnedOffOrBroughtByTheUser() {
        var security = ClusterModel.from(
                        Clusters.cluster(s -> {
                            s.tls = new TlsSpec();
                            s.tls.mode = TlsMode.Secret;
                            s.tls.secretName = "my-certs";
                            s.auth = new AuthSpec();
                            s.auth.secretName = "my-tokens";
                            s.network = new NetworkSpec();
                            s.network.policies = false;
                        }),
                        Clusters.PLATFORM)
                .security();
        assertThat(security.tls().secretName()).isEqualTo("my-certs");
        assertThat(security.auth()).isEqualTo(new SecurityModel.Auth(true, "my-tokens", false, "kv-auth-tokens"));
        assertThat(security.network().policies()).isFalse();

        var off = ClusterModel.from(
                        Clusters.cluster(s -> {
                            s.tls = new TlsSpec();
                            s.tls.mode = TlsMode.Disabled;
                            s.auth = new AuthSpec();
                            s.auth.enabled = false;
                        }),
                        Clusters.PLATFORM)
                .security();
        assertThat(off.tls().enabled()).isFalse();
        assertThat(off.auth().enabled()).isFalse();

        var certManager = ClusterModel.from(
                        Clusters.cluster(s -> {
                            s.tls = new TlsSpec();
                            s.tls.mode = TlsMode.CertManager;
                            s.tls.issuerRef = new IssuerRef("ca-issuer", null, null);
                        }),
                        Clusters.PLATFORM)
                .security()
                .tls();
        assertThat(certManager.issuer()).contains(new IssuerRef("ca-issuer", "Issuer", "cert-manager.io"));
        assertThat(certManager.secretName()).isEqualTo("kv-member-tls");
    }

    @Test
    void settingsThatCannotWorkAreRefusedWithWhatToFix() {
        assertThatThrownBy(() -> tls(t -> {
                    t.certificateDuration = "10d";
                    t.renewBefore = "10d";
                }))
                .isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("renewBefore (10d) must be shorter");
        assertThatThrownBy(() -> tls(t -> {
                    t.renewBefore = "40d";
                    t.caRenewBefore = "20d";
                }))
                .hasMessageContaining("caRenewBefore (20d) must be at least spec.tls.renewBefore (40d)");
        assertThatThrownBy(() -> tls(t -> t.mode = TlsMode.Secret)).hasMessageContaining("needs spec.tls.secretName");
        assertThatThrownBy(() -> tls(t -> t.mode = TlsMode.CertManager)).hasMessageContaining("issuerRef");
        assertThatThrownBy(() -> tls(t -> t.caDuration = "a year")).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> tls(t -> t.certificateDuration = "48h"))
                .hasMessageContaining(
                        "renewBefore (30d (default)) must be shorter than spec.tls.certificateDuration (48h)");
        assertThat(tls(t -> {
                            t.certificateDuration = "48h";
                            t.renewBefore = "16h";
                        })
                        .certificateDuration())
                .isEqualTo(Duration.ofHours(48));
    }

    @Test
    void theRotationAnnotationsAreRead() {
        var cluster = Clusters.cluster(s -> {});
        cluster.getMetadata()
                .setAnnotations(java.util.Map.of(SecurityNames.RENEW_CERTIFICATE, "a", SecurityNames.REPLACE_CA, "b"));
        var tls = ClusterModel.from(cluster, Clusters.PLATFORM).security().tls();
        assertThat(tls.renewRequest()).isEqualTo("a");
        assertThat(tls.replaceCaRequest()).isEqualTo("b");
        assertThat(Optional.of(tls.issuer())).contains(Optional.empty());
    }

    private static SecurityModel.Tls tls(java.util.function.Consumer<TlsSpec> change) {
        return ClusterModel.from(
                        Clusters.cluster(s -> {
                            s.tls = new TlsSpec();
                            change.accept(s.tls);
                        }),
                        Clusters.PLATFORM)
                .security()
                .tls();
    }
}
