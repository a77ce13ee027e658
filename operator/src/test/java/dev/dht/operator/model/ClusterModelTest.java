package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.JvmSpec;
import dev.dht.operator.api.v1alpha1.ReplicationSpec;
import dev.dht.operator.api.v1alpha1.RocksDbSpec;
import dev.dht.operator.api.v1alpha1.ServiceType;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ClusterModelTest {
    @Test
    void anEmptySpecGetsTheSchemaDefaults() {
        var model = ClusterModel.from(Clusters.cluster(s -> {}), Clusters.PLATFORM);
        assertThat(model.replicas()).isEqualTo(3);
        assertThat(model.replicationFactor()).isEqualTo(3);
        assertThat(model.image()).isEqualTo("dht-node:test");
        assertThat(model.imagePullPolicy()).isEqualTo("IfNotPresent");
        assertThat(model.storageSize()).isEqualTo("10Gi");
        assertThat(model.retainOnDelete()).isTrue();
        assertThat(model.retainOnScaleDown()).isFalse();
        assertThat(model.serviceType()).isEqualTo(ServiceType.ClusterIP);
        assertThat(model.servicePort()).isEqualTo(8080);
        assertThat(model.resources().getRequests()).containsOnlyKeys("cpu", "memory");
        assertThat(model.resources().getLimits()).containsOnlyKeys("memory");
        assertThat(model.heapBytes()).isEmpty();
    }

    @ParameterizedTest(name = "replicas {0} -> effective factor {1}")
    @CsvSource({"1,1", "2,2", "3,3", "5,3", "12,3"})
    void theNodesGetFactorThreeWhatEverTheReplicasAndCapItAtTheMemberCount(int replicas, int effective) {
        var model = ClusterModel.from(Clusters.cluster(s -> s.replicas = replicas), Clusters.PLATFORM);
        assertThat(model.replicationFactor())
                .as("the nodes' setting does not depend on replicas")
                .isEqualTo(3);
        assertThat(model.effectiveReplicationFactor()).isEqualTo(effective);
    }

    @Test
    void aSetFactorIsKeptAndCappedTheSameWay() {
        var model = ClusterModel.from(
                Clusters.cluster(s -> {
                    s.replicas = 5;
                    s.replication = new ReplicationSpec();
                    s.replication.factor = 2;
                }),
                Clusters.PLATFORM);
        assertThat(model.replicationFactor()).isEqualTo(2);
        assertThat(model.effectiveReplicationFactor()).isEqualTo(2);
        assertThat(model.withReplicationFactor(3).replicationFactor()).isEqualTo(3);
        assertThat(model.withReplicationFactor(3).withReplicationFactor(2)).isEqualTo(model);
    }

    static Stream<Arguments> invalidSpecs() {
        return Stream.of(
                Arguments.of(
                        "factor above replicas",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.replicas = 2;
                            s.replication = new ReplicationSpec();
                            s.replication.factor = 3;
                        },
                        "spec.replication.factor is 3 but must be between 1 and spec.replicas (2)"),
                Arguments.of(
                        "no members",
                        (Consumer<DhtClusterSpec>) s -> s.replicas = 0,
                        "spec.replicas is 0: a cluster needs at least 1 member"),
                Arguments.of(
                        "heap not a quantity",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.jvm = new JvmSpec();
                            s.jvm.heap = "lots";
                        },
                        "spec.jvm.heap is 'lots', not a Kubernetes quantity"),
                Arguments.of(
                        "negative block cache",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.rocksdb = new RocksDbSpec();
                            s.rocksdb.blockCacheSize = "-1Mi";
                        },
                        "spec.rocksdb.blockCacheSize is '-1Mi' but must be positive"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidSpecs")
    void aSpecTheSchemaShouldHaveRejectedFailsWithAMessage(
            String why, Consumer<DhtClusterSpec> change, String message) {
        assertThatThrownBy(() -> ClusterModel.from(Clusters.cluster(change), Clusters.PLATFORM))
                .isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining(message);
    }

    @Test
    void quantitiesBecomePlainBytes() {
        var model = ClusterModel.from(
                Clusters.cluster(s -> {
                    s.jvm = new JvmSpec();
                    s.jvm.heap = "1536Mi";
                    s.rocksdb = new RocksDbSpec();
                    s.rocksdb.blockCacheSize = "256Mi";
                    s.rocksdb.writeBufferSize = "64M";
                }),
                Clusters.PLATFORM);
        assertThat(model.heapBytes()).contains(1536L << 20);
        assertThat(model.blockCacheBytes()).contains(256L << 20);
        assertThat(model.writeBufferBytes()).as("decimal units stay decimal").contains(64_000_000L);
    }

    @Test
    void membersAreAddressedByStablePodDnsNamesThroughTheHeadlessService() {
        var model = ClusterModel.from(Clusters.cluster(s -> s.replicas = 2), new Platform("img", "example.org"));
        assertThat(model.topologyLines(model.initialLayout()))
                .containsExactly(
                        "http://kv-0.kv-headless.prod.svc.example.org:8080",
                        "http://kv-1.kv-headless.prod.svc.example.org:8080");
    }
}
