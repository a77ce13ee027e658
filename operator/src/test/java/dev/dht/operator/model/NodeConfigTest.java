package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.operator.api.v1alpha1.JvmSpec;
import dev.dht.operator.api.v1alpha1.ProfilerSpec;
import dev.dht.operator.api.v1alpha1.RepairSpec;
import dev.dht.operator.api.v1alpha1.ReplicationSpec;
import dev.dht.operator.api.v1alpha1.RocksDbSpec;
import dev.dht.operator.api.v1alpha1.ServerSpec;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeConfigTest {
    @Test
    void defaultsSetOnlyTheReplicationFactorTheCertificatesTheTokensRepairTheDrainAndTheJvm() {
        var env = NodeConfig.environment(ClusterModel.from(Clusters.cluster(s -> {}), Clusters.PLATFORM));
        assertThat(env)
                .containsOnlyKeys(
                        "DHT_REPLICATION_FACTOR",
                        "DHT_MEMBER_TLS_CERT",
                        "DHT_MEMBER_TLS_KEY",
                        "DHT_MEMBER_TLS_CA",
                        "DHT_CLIENT_TLS_CERT",
                        "DHT_CLIENT_TLS_KEY",
                        "DHT_CLIENT_TLS_CA",
                        "DHT_CLIENT_AUTH",
                        "DHT_METRICS_PORT",
                        "DHT_AUTH_TOKENS",
                        "DHT_REPAIR_INTERVAL",
                        "DHT_REPAIR_RATE",
                        "DHT_DRAIN_TIME",
                        "JAVA_TOOL_OPTIONS");
        assertThat(env)
                .as("a new cluster's client port: TLS, certificates optional, metrics on their own port")
                .containsEntry("DHT_CLIENT_TLS_CERT", "/etc/dht/client-tls/tls.crt")
                .containsEntry("DHT_CLIENT_AUTH", "optional")
                .containsEntry("DHT_METRICS_PORT", "9080");
        assertThat(env)
                .containsEntry("DHT_MEMBER_TLS_CERT", "/etc/dht/member-tls/tls.crt")
                .containsEntry("DHT_MEMBER_TLS_KEY", "/etc/dht/member-tls/tls.key")
                .containsEntry("DHT_MEMBER_TLS_CA", "/etc/dht/member-tls/ca.crt")
                .containsEntry("DHT_AUTH_TOKENS", "/etc/dht/auth/tokens");
        assertThat(env.get("DHT_REPLICATION_FACTOR")).isEqualTo("3");
        assertThat(env.get("DHT_REPAIR_INTERVAL")).as("on by default, 6h").isEqualTo("21600s");
        assertThat(env.get("DHT_REPAIR_RATE")).isEqualTo("4194304");
        assertThat(env.get("DHT_DRAIN_TIME")).isEqualTo("5s");
        assertThat(env.get("JAVA_TOOL_OPTIONS")).isEqualTo("-XX:MaxRAMPercentage=40.0 -XX:+ExitOnOutOfMemoryError");
    }

    /** Racks need the nodes' feature level 2; a cluster without racks keeps its level (no roll on operator upgrade). */
    @Test
    void racksRaiseTheFeatureLevelAndNothingElseDoes() {
        var racked = NodeConfig.environment(ClusterModel.from(
                Clusters.cluster(s -> s.racks = new java.util.ArrayList<>(java.util.List.of(
                        RackStatefulSetsTest.rack("a", "zone-a"), RackStatefulSetsTest.rack("b", "zone-b")))),
                Clusters.PLATFORM));
        assertThat(racked).containsEntry(NodeConfig.FEATURE_LEVEL, "2");
        var plain = NodeConfig.environment(ClusterModel.from(Clusters.cluster(s -> {}), Clusters.PLATFORM));
        assertThat(plain).doesNotContainKey(NodeConfig.FEATURE_LEVEL);
    }

    @Test
    void everyNodeOptionInTheSpecBecomesItsEnvironmentVariable() {
        var env = NodeConfig.environment(ClusterModel.from(
                Clusters.cluster(s -> {
                    s.replicas = 5;
                    s.replication = new ReplicationSpec();
                    s.replication.factor = 2;
                    s.rocksdb = new RocksDbSpec();
                    s.rocksdb.blockCacheSize = "256Mi";
                    s.rocksdb.writeBufferSize = "32Mi";
                    s.server = new ServerSpec();
                    s.server.requestTimeout = "500ms";
                    s.server.workers = 8;
                    s.server.queueSize = 1024;
                    s.server.maxBody = "1Mi";
                    s.server.tombstoneGrace = "12h";
                    s.repair = new RepairSpec();
                    s.repair.interval = "90m";
                    s.repair.rate = "1Mi";
                    s.profiler = new ProfilerSpec();
                    s.profiler.enabled = true;
                    s.jvm = new JvmSpec();
                    s.jvm.heap = "1Gi";
                    s.jvm.options = List.of("-XX:+UseZGC");
                }),
                Clusters.PLATFORM));
        assertThat(env)
                .containsEntry("DHT_REPLICATION_FACTOR", "2")
                .containsEntry("DHT_BLOCK_CACHE", "268435456")
                .containsEntry("DHT_WRITE_BUFFER", "33554432")
                .containsEntry("DHT_REQUEST_TIMEOUT", "500ms")
                .containsEntry("DHT_WORKERS", "8")
                .containsEntry("DHT_QUEUE_SIZE", "1024")
                .containsEntry("DHT_MAX_BODY", "1048576")
                .containsEntry("DHT_TOMBSTONE_GRACE", "12h")
                .containsEntry("DHT_REPAIR_INTERVAL", "5400s")
                .containsEntry("DHT_REPAIR_RATE", "1048576")
                .containsEntry("DHT_PROFILE_DIR", "/var/lib/dht/profiles")
                .containsEntry(
                        "JAVA_TOOL_OPTIONS",
                        "-Xms1g -Xmx1g -XX:+ExitOnOutOfMemoryError"
                                + " -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -XX:+UseZGC");
    }

    @Test
    void repairOffIsAZeroIntervalAndAnIntervalPastHalfTheGraceIsRefused() {
        var off = NodeConfig.environment(ClusterModel.from(
                Clusters.cluster(s -> {
                    s.repair = new RepairSpec();
                    s.repair.enabled = false;
                }),
                Clusters.PLATFORM));
        assertThat(off.get("DHT_REPAIR_INTERVAL")).isEqualTo("0s");
        assertThatThrownBy(() -> ClusterModel.from(
                        Clusters.cluster(s -> {
                            s.repair = new RepairSpec();
                            s.repair.interval = "13h";
                        }),
                        Clusters.PLATFORM))
                .isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("spec.repair.interval (13h) must be at most half of the tombstone grace (1d)");
    }

    @ParameterizedTest(name = "{0} bytes -> {1}")
    @CsvSource({"1073741824,1g", "536870912,512m", "1572864,1536k", "1000,1000", "3221225472,3g"})
    void jvmSizesUseTheLargestExactUnit(long bytes, String size) {
        assertThat(NodeConfig.jvmSize(bytes)).isEqualTo(size);
    }

    @Test
    void theHashFollowsTheContentNotTheOrder() {
        var a = new java.util.LinkedHashMap<String, String>();
        a.put("A", "1");
        a.put("B", "2");
        var b = new java.util.LinkedHashMap<String, String>();
        b.put("B", "2");
        b.put("A", "1");
        assertThat(NodeConfig.hash(a)).isEqualTo(NodeConfig.hash(b));
        b.put("A", "3");
        assertThat(NodeConfig.hash(a)).isNotEqualTo(NodeConfig.hash(b));
    }
}
