package dev.dht.operator.scaling;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.operator.api.v1alpha1.RackSpec;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Clusters;
import dev.dht.operator.model.DesiredState;
import dev.dht.operator.model.InvalidSpecException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The operator's second line behind the schema: members of a rack the spec no longer names stop the reconcile. */
class RackRemovalTest {
    static List<RackSpec> racks(String... names) {
        var out = new ArrayList<RackSpec>();
        for (String name : names) {
            var rack = new RackSpec();
            rack.name = name;
            out.add(rack);
        }
        return out;
    }

    static DesiredState desired(int replicas, String... racks) {
        return Clusters.desired(s -> {
            s.replicas = replicas;
            s.racks = racks.length == 0 ? null : racks(racks);
        });
    }

    @Test
    void aRackStillListedInTheTopologyCannotLeaveTheSpec() {
        var before = desired(3, "a", "b", "c");
        var after = ClusterModel.from(
                Clusters.cluster(s -> {
                    s.replicas = 3;
                    s.racks = racks("a", "b");
                }),
                Clusters.PLATFORM);
        assertThatThrownBy(() -> RackRemoval.check(after, Optional.of(before.topology()), before.statefulSets()))
                .isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("rack c still has 1 members in the topology and 1 pods")
                .hasMessageContaining("put it back at its place with drain: true");
    }

    @Test
    void racksCannotReplaceTheMembersOfAClusterMadeWithout() {
        var before = desired(3);
        var after = ClusterModel.from(Clusters.cluster(s -> s.racks = racks("a")), Clusters.PLATFORM);
        assertThatThrownBy(() -> RackRemoval.check(after, Optional.of(before.topology()), before.statefulSets()))
                .hasMessageContaining("the cluster's members without a rack still has 3 members")
                .hasMessageContaining("restore a backup into a new DhtCluster");
    }

    @Test
    void aDrainedEmptyRackMayGoAndItsZeroReplicaStatefulSetIsLeftAlone() {
        var drained = Clusters.desired(s -> {
            s.replicas = 2;
            s.racks = racks("a", "b", "c");
            s.racks.get(2).drain = true;
        });
        var after = ClusterModel.from(
                Clusters.cluster(s -> {
                    s.replicas = 2;
                    s.racks = racks("a", "b");
                }),
                Clusters.PLATFORM);
        assertThatCode(() -> RackRemoval.check(after, Optional.of(drained.topology()), drained.statefulSets()))
                .doesNotThrowAnyException();
    }
}
