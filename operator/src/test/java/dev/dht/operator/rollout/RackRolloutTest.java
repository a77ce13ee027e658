package dev.dht.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Layout;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the racks' StatefulSets say of a rollout (the roll itself: MemberRollTest). */
class RackRolloutTest {
    static final List<String> ABC = List.of("a", "b", "c");

    /** A rack's live StatefulSet: its template hash, and how far the controller got. */
    static StatefulSet sts(String rack, String hash, String current, String update, int ready) {
        return new StatefulSetBuilder()
                .withNewMetadata()
                .withName("kv-" + rack)
                .withGeneration(2L)
                .withAnnotations(Map.of(Labels.TEMPLATE_HASH, hash))
                .endMetadata()
                .withNewSpec()
                .withReplicas(3)
                .endSpec()
                .withNewStatus()
                .withObservedGeneration(2L)
                .withReplicas(3)
                .withReadyReplicas(ready)
                .withAvailableReplicas(ready)
                .withUpdatedReplicas(current.equals(update) ? 3 : 0)
                .withCurrentRevision(current)
                .withUpdateRevision(update)
                .endStatus()
                .build();
    }

    @Test
    void theRolloutIsCompleteWhenEveryRackRunsItsTemplateOnItsTarget() {
        var done =
                List.of(sts("a", "new", "r2", "r2", 3), sts("b", "new", "r2", "r2", 3), sts("c", "new", "r2", "r2", 3));
        assertThat(RackRollout.summary("kv", done, Layout.of(ABC, 3, 3, 3)).complete())
                .isTrue();
        assertThat(RackRollout.summary("kv", done, Layout.of(ABC, 3, 3, 4)).complete())
                .as("c below its target")
                .isFalse();
        var held =
                List.of(sts("a", "new", "r2", "r2", 3), sts("b", "new", "r1", "r2", 3), sts("c", "new", "r1", "r2", 3));
        var summary = RackRollout.summary("kv", held, Layout.of(ABC, 3, 3, 3));
        assertThat(summary.complete()).isFalse();
        assertThat(summary.updated()).isEqualTo(3);
        assertThat(summary.existing()).isEqualTo(9);
    }
}
