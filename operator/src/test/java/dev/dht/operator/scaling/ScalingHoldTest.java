package dev.dht.operator.scaling;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.ScalingStep;
import dev.dht.operator.model.Layout;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ScalingHoldTest {
    static final List<String> THREE = List.of("u0", "u1", "u2");
    static final Refusal BACKUP = new Refusal(ScalingHold.BACKUP_REASON, "a backup runs");

    static ScaleObservation observed(int target) {
        return new ScaleObservation(
                target,
                Set.of(),
                Optional.of(Layout.single(3)),
                Optional.of(THREE),
                Layout.single(3),
                true,
                ScalingPlanTest.readyUpTo(3),
                true,
                false);
    }

    @Test
    void aScaleAskedForWhileABackupRunsIsHeldAtWhatRuns() {
        var planned = ScalingPlan.decide(observed(5), Map.of());
        assertThat(planned.statefulSetReplicas().total())
                .as("unheld, the StatefulSet grows first")
                .isEqualTo(5);
        var held = ScalingHold.apply(planned, observed(5), Optional.of(BACKUP));
        assertThat(held.decision().statefulSetReplicas().total()).isEqualTo(3);
        assertThat(held.decision().topologyMembers().total()).isEqualTo(3);
        assertThat(held.decision().step()).contains(ScalingStep.Held);
        assertThat(held.refusal()).contains(BACKUP);
        // a held scale is not steady, yet the members stay as they are: a restore goes on under the hold
        assertThat(held.decision().steady()).isFalse();
        assertThat(held.decision().membersFixed()).isTrue();
        assertThat(planned.membersFixed())
                .as("a scale that runs changes the members")
                .isFalse();
    }

    @Test
    void nothingIsHeldWithoutAReasonOrWhenNothingWouldChange() {
        var steady = ScalingPlan.decide(observed(3), Map.of());
        assertThat(ScalingHold.apply(steady, observed(3), Optional.of(BACKUP)).refusal())
                .isEmpty();
        var planned = ScalingPlan.decide(observed(5), Map.of());
        assertThat(ScalingHold.apply(planned, observed(5), Optional.empty()).decision())
                .isEqualTo(planned);
        // a new cluster (no StatefulSet yet) is created whatever holds
        var fresh = new ScaleObservation(
                3, Set.of(), Optional.empty(), Optional.empty(), Layout.single(0), false, Set.of(), true, false);
        var created = ScalingPlan.decide(fresh, Map.of());
        assertThat(ScalingHold.apply(created, fresh, Optional.of(BACKUP)).decision())
                .isEqualTo(created);
    }
}
