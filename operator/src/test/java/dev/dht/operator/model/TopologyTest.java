package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TopologyTest {
    static final List<String> THREE = lines(3);
    static final List<String> FIVE = lines(5);

    static List<String> lines(int replicas) {
        var model = ClusterModel.from(Clusters.cluster(s -> s.replicas = replicas), Clusters.PLATFORM);
        return model.topologyLines(model.initialLayout());
    }

    static io.fabric8.kubernetes.api.model.ConfigMap configMap(int replicas, long version) {
        var cluster = Clusters.cluster(s -> s.replicas = replicas);
        var model = ClusterModel.from(cluster, Clusters.PLATFORM);
        return Topology.configMap(cluster, model, model.initialLayout(), version);
    }

    @Test
    void aNewClusterStartsAtVersionOne() {
        assertThat(Topology.version(THREE, Optional.empty(), Optional.empty())).isEqualTo(1);
    }

    @Test
    void anUnchangedMemberListKeepsItsVersion() {
        assertThat(Topology.version(THREE, Optional.of(configMap(3, 7)), Optional.of(7L)))
                .isEqualTo(7);
    }

    @Test
    void aChangedMemberListGetsTheNextVersion() {
        assertThat(Topology.version(FIVE, Optional.of(configMap(3, 7)), Optional.of(7L)))
                .isEqualTo(8);
    }

    @Test
    void aDeletedConfigMapDoesNotTurnTheVersionBack() {
        assertThat(Topology.version(THREE, Optional.empty(), Optional.of(7L))).isEqualTo(8);
    }

    @Test
    void theFileListsOneMemberALineUnderAComment() {
        var file = configMap(3, 2).getData().get(Topology.MEMBERS_KEY);
        assertThat(file.lines().findFirst().orElseThrow())
                .startsWith("# dht topology of DhtCluster prod/kv, version 2");
        assertThat(Topology.members(configMap(3, 2))).isEqualTo(THREE);
        assertThat(configMap(3, 2).getMetadata().getAnnotations()).containsEntry(Labels.TOPOLOGY_VERSION, "2");
    }
}
