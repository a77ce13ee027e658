package dev.dht.operator.scaling;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Clusters;
import dev.dht.operator.model.DesiredState;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Member;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Reading the live objects into a scaling observation. */
class ScaleObservationTest {
    final DesiredState desired = Clusters.desired(s -> s.replicas = 3);
    final ClusterModel model = desired.model();

    static Pod pod(String name, boolean ready, String configHash) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withAnnotations(Map.of(Labels.CONFIG_HASH, configHash))
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .endCondition()
                .endStatus()
                .build();
    }

    StatefulSet sts(int replicas, long generation, Long observed, String current, String update) {
        return new StatefulSetBuilder(desired.statefulSet())
                .editMetadata()
                .withGeneration(generation)
                .endMetadata()
                .editSpec()
                .withReplicas(replicas)
                .endSpec()
                .withNewStatus()
                .withObservedGeneration(observed)
                .withCurrentRevision(current)
                .withUpdateRevision(update)
                .endStatus()
                .build();
    }

    @Test
    void readyMembersComeFromThisClustersPodsOnly() {
        String hash = desired.configHash();
        var pods = List.of(
                pod("kv-0", true, hash),
                pod("kv-1", false, hash),
                pod("kv-2", true, hash),
                pod("kv-x", true, hash),
                pod("other-3", true, hash));
        var o = ScaleObservation.observe(
                model, Map.of("", sts(3, 1, 1L, "r1", "r1")), Optional.of(desired.topology()), pods, Optional.empty());
        assertThat(o.ready()).containsExactlyInAnyOrder(Member.of(0), Member.of(2));
        assertThat(o.statefulSetReplicas()).hasValue(Layout.single(3));
        assertThat(o.topologyMembers()).isEqualTo(Layout.single(3));
        assertThat(o.target()).isEqualTo(3);
        assertThat(o.rolloutComplete()).isTrue();
    }

    @Test
    void settledMeansTheStatusRecordedTheLiveTopologysVersion() {
        var topology = Optional.of(desired.topology()); // version 1
        var sts = Map.of("", sts(3, 1, 1L, "r1", "r1"));
        assertThat(ScaleObservation.observe(model, sts, topology, List.of(), Optional.of(1L))
                        .settled())
                .isTrue();
        assertThat(ScaleObservation.observe(model, sts, topology, List.of(), Optional.of(0L))
                        .settled())
                .isFalse();
        assertThat(ScaleObservation.observe(model, sts, topology, List.of(), Optional.empty())
                        .settled())
                .isFalse();
        assertThat(ScaleObservation.observe(model, sts, Optional.empty(), List.of(), Optional.of(1L))
                        .settled())
                .isFalse();
    }

    @Test
    void aRollingUpdateIsSeenInTheRevisionsOrInThePodsConfigBeforeTheControllerCatchesUp() {
        String hash = desired.configHash();
        var current = List.of(pod("kv-0", true, hash), pod("kv-1", true, hash));
        var old = List.of(pod("kv-0", true, hash), pod("kv-1", true, "older"));
        assertThat(ScaleObservation.rolloutComplete(sts(3, 2, 2L, "r1", "r2"), current))
                .as("revisions differ")
                .isFalse();
        assertThat(ScaleObservation.rolloutComplete(sts(3, 2, 1L, "r1", "r1"), old))
                .as("not observed, old pod")
                .isFalse();
        assertThat(ScaleObservation.rolloutComplete(sts(3, 2, 1L, "r1", "r1"), current))
                .as("a replica change the controller has not seen yet is no rollout")
                .isTrue();
        assertThat(ScaleObservation.rolloutComplete(sts(3, 2, 2L, "r2", "r2"), current))
                .isTrue();
    }
}
