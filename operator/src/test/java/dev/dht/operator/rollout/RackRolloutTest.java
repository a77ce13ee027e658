package dev.dht.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Layout;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Racks roll one after the other: which racks wait for a new template. */
class RackRolloutTest {
  static final List<String> ABC = List.of("a", "b", "c");

  /** A rack's live StatefulSet: its template hash, and how far the controller got. */
  static StatefulSet sts(String rack, String hash, String current, String update, int ready) {
    return new StatefulSetBuilder()
        .withNewMetadata().withName("kv-" + rack).withGeneration(2L)
          .withAnnotations(Map.of(Labels.TEMPLATE_HASH, hash)).endMetadata()
        .withNewSpec().withReplicas(3).endSpec()
        .withNewStatus().withObservedGeneration(2L).withReplicas(3).withReadyReplicas(ready).withAvailableReplicas(ready)
          .withUpdatedReplicas(current.equals(update) ? 3 : 0).withCurrentRevision(current).withUpdateRevision(update)
        .endStatus().build();
  }

  static Map<String, StatefulSet> live(StatefulSet a, StatefulSet b, StatefulSet c) {
    return Map.of("a", a, "b", b, "c", c);
  }

  static final Map<String, String> NEW = Map.of("a", "new", "b", "new", "c", "new");

  @Test
  void aNewTemplateGoesToTheFirstRackOnlyTheOthersWait() {
    var steady = live(sts("a", "old", "r1", "r1", 3), sts("b", "old", "r1", "r1", 3), sts("c", "old", "r1", "r1", 3));
    assertThat(RackRollout.held(ABC, steady, NEW)).containsExactly("b", "c");
  }

  @Test
  void theNextRackRollsOnceTheOneBeforeIsRolledAndEveryPodReady() {
    var aRolling = live(sts("a", "new", "r1", "r2", 2), sts("b", "new", "r1", "r2", 3), sts("c", "new", "r1", "r2", 3));
    assertThat(RackRollout.held(ABC, aRolling, NEW)).containsExactly("b", "c");
    var aRolledNotReady = live(sts("a", "new", "r2", "r2", 2), sts("b", "new", "r1", "r2", 3),
        sts("c", "new", "r1", "r2", 3));
    assertThat(RackRollout.held(ABC, aRolledNotReady, NEW)).as("rolled but not serving yet").containsExactly("b", "c");
    var aDone = live(sts("a", "new", "r2", "r2", 3), sts("b", "new", "r1", "r2", 3), sts("c", "new", "r1", "r2", 3));
    assertThat(RackRollout.held(ABC, aDone, NEW)).containsExactly("c");
    var bDone = live(sts("a", "new", "r2", "r2", 3), sts("b", "new", "r2", "r2", 3), sts("c", "new", "r1", "r2", 3));
    assertThat(RackRollout.held(ABC, bDone, NEW)).isEmpty();
  }

  @Test
  void aRackDownForAnotherReasonHoldsNothingWithoutANewTemplate() {
    var aDown = live(sts("a", "new", "r2", "r2", 1), sts("b", "new", "r2", "r2", 3), sts("c", "new", "r2", "r2", 3));
    assertThat(RackRollout.held(ABC, aDown, NEW)).as("nothing to roll: no partition write").isEmpty();
    assertThat(RackRollout.held(ABC, aDown, Map.of("a", "new", "b", "newer", "c", "newer")))
        .as("but a new template waits until rack a serves again").containsExactly("b", "c");
  }

  @Test
  void aHeldRackStaysHeldUntilTheControllerHasSeenItsSpecButAScaleAloneHoldsNothing() {
    var aRolling = sts("a", "new", "r1", "r2", 2);
    var bJustHeld = new StatefulSetBuilder(sts("b", "new", "r1", "r1", 3)).editMetadata().withGeneration(3L).endMetadata()
        .editSpec().withNewUpdateStrategy().withNewRollingUpdate().withPartition(3).endRollingUpdate()
        .endUpdateStrategy().endSpec().build();
    assertThat(RackRollout.held(ABC, live(aRolling, bJustHeld, sts("c", "new", "r1", "r2", 3)), NEW))
        .as("b's old status says rolled out; its spec holds it").containsExactly("b", "c");
    var bScaled = new StatefulSetBuilder(sts("b", "new", "r2", "r2", 3)).editMetadata().withGeneration(3L).endMetadata()
        .build();
    assertThat(RackRollout.held(ABC, live(sts("a", "new", "r2", "r2", 2), bScaled, sts("c", "new", "r2", "r2", 3)),
        NEW)).as("a scale, no new template: no partition written").isEmpty();
  }

  @Test
  void aNewRackHasNothingToRoll() {
    assertThat(RackRollout.held(ABC, Map.of(), NEW)).isEmpty();
  }

  @Test
  void theRolloutIsCompleteWhenEveryRackRunsItsTemplateOnItsTarget() {
    var done = List.of(sts("a", "new", "r2", "r2", 3), sts("b", "new", "r2", "r2", 3), sts("c", "new", "r2", "r2", 3));
    assertThat(RackRollout.summary("kv", done, Layout.of(ABC, 3, 3, 3)).complete()).isTrue();
    assertThat(RackRollout.summary("kv", done, Layout.of(ABC, 3, 3, 4)).complete()).as("c below its target")
        .isFalse();
    var held = List.of(sts("a", "new", "r2", "r2", 3), sts("b", "new", "r1", "r2", 3), sts("c", "new", "r1", "r2", 3));
    var summary = RackRollout.summary("kv", held, Layout.of(ABC, 3, 3, 3));
    assertThat(summary.complete()).isFalse();
    assertThat(summary.updated()).isEqualTo(3);
    assertThat(summary.existing()).isEqualTo(9);
  }
}
