package dev.dht.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OperatorSettingsTest {
    @Test
    void defaults() {
        var settings = OperatorSettings.fromEnv(Map.of());
        assertThat(settings.watchNamespaces()).isEmpty();
        assertThat(settings.defaultNodeImage()).isEqualTo("dht-node:" + OperatorSettings.VERSION);
        assertThat(OperatorSettings.VERSION)
                .isNotEqualTo("dev")
                .as("filtered from the pom")
                .matches("\\d+\\.\\d+.*");
        assertThat(settings.clusterDomain()).isEqualTo("cluster.local");
        assertThat(settings.httpPort()).isEqualTo(8081);
        assertThat(settings.leaseNamespace()).isEmpty();
        assertThat(settings.platform().runnerImage()).isEqualTo("dht-loadrunner:" + OperatorSettings.VERSION);
        assertThat(settings.memberUrls()).isEmpty();
    }

    @Test
    void everyVariable() {
        var settings = OperatorSettings.fromEnv(Map.of(
                "DHT_OPERATOR_WATCH_NAMESPACES", " team-a, team-b ,",
                "DHT_OPERATOR_NODE_IMAGE", "reg/dht-node:9",
                "DHT_OPERATOR_RUNNER_IMAGE", "reg/dht-loadrunner:9",
                "DHT_OPERATOR_CLUSTER_DOMAIN", "corp.local",
                "DHT_OPERATOR_HTTP_PORT", "0",
                "DHT_OPERATOR_LEADER_ELECTION", "true",
                "DHT_OPERATOR_NAMESPACE", "dht-system",
                "DHT_OPERATOR_MEMBER_URLS", "dht/dht-0=http://127.0.0.1:18080, dht/dht-1=http://127.0.0.1:18081/"));
        assertThat(settings.watchNamespaces()).containsExactlyInAnyOrder("team-a", "team-b");
        assertThat(settings.platform().defaultNodeImage()).isEqualTo("reg/dht-node:9");
        assertThat(settings.platform().clusterDomain()).isEqualTo("corp.local");
        assertThat(settings.platform().runnerImage()).isEqualTo("reg/dht-loadrunner:9");
        assertThat(settings.httpPort()).isZero();
        assertThat(settings.leaseNamespace()).isEqualTo(Optional.of("dht-system"));
        assertThat(settings.memberUrls())
                .containsOnly(
                        Map.entry("dht/dht-0", "http://127.0.0.1:18080"),
                        Map.entry("dht/dht-1", "http://127.0.0.1:18081/"));
    }

    @Test
    void badValuesSayWhatIsWrong() {
        assertThatThrownBy(() -> OperatorSettings.fromEnv(Map.of("DHT_OPERATOR_HTTP_PORT", "eighty")))
                .hasMessage("DHT_OPERATOR_HTTP_PORT must be a port number (0-65535), not 'eighty'");
        assertThatThrownBy(() -> OperatorSettings.fromEnv(Map.of("DHT_OPERATOR_WATCH_NAMESPACES", "Team_A")))
                .hasMessageContaining("'Team_A' is not a namespace name");
        assertThatThrownBy(() -> OperatorSettings.fromEnv(Map.of("DHT_OPERATOR_LEADER_ELECTION", "true")))
                .hasMessageContaining("needs DHT_OPERATOR_NAMESPACE");
        assertThatThrownBy(() -> OperatorSettings.fromEnv(Map.of("DHT_OPERATOR_LEADER_ELECTION", "yes")))
                .hasMessageContaining("must be true or false");
        assertThatThrownBy(() -> OperatorSettings.fromEnv(Map.of("DHT_OPERATOR_MEMBER_URLS", "dht-0=http://x:1")))
                .hasMessageContaining("'dht-0=http://x:1' is not <namespace>/<pod>=<base URL>");
    }
}
