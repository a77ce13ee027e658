package dev.dht.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** A new pod template reaches one member at a time, rack by rack, highest ordinal first; the canary stops it. */
class MemberRollTest {
    /** A rack's live StatefulSet of 3 at this partition, the controller's update revision "new". */
    static StatefulSet sts(String rack, int partition) {
        return new StatefulSetBuilder()
                .withNewMetadata()
                .withName("kv-" + rack)
                .withGeneration(2L)
                .endMetadata()
                .withNewSpec()
                .withReplicas(3)
                .withNewUpdateStrategy()
                .withNewRollingUpdate()
                .withPartition(partition)
                .endRollingUpdate()
                .endUpdateStrategy()
                .endSpec()
                .withNewStatus()
                .withObservedGeneration(2L)
                .withCurrentRevision("old")
                .withUpdateRevision("new")
                .endStatus()
                .build();
    }

    static Pod pod(String rack, int ordinal, String revision, boolean ready) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("kv-" + rack + "-" + ordinal)
                .withLabels(Map.of("controller-revision-hash", revision))
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .endCondition()
                .addNewContainerStatus()
                .withName("node")
                .withNewState()
                .withNewWaiting()
                .withReason(ready ? null : "CrashLoopBackOff")
                .endWaiting()
                .endState()
                .endContainerStatus()
                .endStatus()
                .build();
    }

    /** A rack whose pods from {@code firstNew} up run the new revision, all ready unless {@code notReady}. */
    static MemberRoll.RackView rack(String rack, int partition, int firstNew, int... notReady) {
        var pods = new TreeMap<Integer, Pod>();
        for (int i = 0; i < 3; i++) {
            int ordinal = i;
            pods.put(
                    i,
                    pod(
                            rack,
                            i,
                            i >= firstNew ? "new" : "old",
                            java.util.stream.IntStream.of(notReady).noneMatch(n -> n == ordinal)));
        }
        return new MemberRoll.RackView(rack, 3, Optional.of(sts(rack, partition)), false, pods);
    }

    static MemberRoll.RackView changed(String rack) {
        var view = rack(rack, 0, 3);
        return new MemberRoll.RackView(rack, 3, view.live(), true, view.pods());
    }

    @Test
    void aNewTemplateGoesInWithEveryMemberHeld() {
        var plan = MemberRoll.decide("kv", List.of(changed("a"), changed("b")), Optional.empty());
        assertThat(plan.partitions()).containsExactlyInAnyOrderEntriesOf(Map.of("a", 3, "b", 3));
        assertThat(plan.next()).isEmpty();
        assertThat(plan.rolling()).isTrue();
    }

    @Test
    void theFirstRacksHighestOutdatedMemberIsNextAndTheLaterRacksWait() {
        var plan = MemberRoll.decide("kv", List.of(rack("a", 3, 3), changed("b")), Optional.empty());
        assertThat(plan.next()).contains(new MemberRoll.Step("a", 2, "kv-a-2"));
        assertThat(plan.partitions())
                .as("before the gates")
                .containsEntry("a", 3)
                .containsEntry("b", 3);
        var gated = plan.gate(Optional.empty());
        assertThat(gated.partitions()).containsEntry("a", 2).containsEntry("b", 3);
        assertThat(gated.reason()).isEqualTo("Rolling");

        var waiting = plan.gate(Optional.of("kv-b-0 holds 3 hints not yet delivered"));
        assertThat(waiting.partitions()).containsEntry("a", 3);
        assertThat(waiting.reason()).isEqualTo("WaitingForCluster");
        assertThat(waiting.message()).contains("next: kv-a-2").contains("kv-b-0 holds 3 hints");
    }

    @Test
    void aMemberThatIsNotBackStopsTheRollAndItGoesOnWhenItIs() {
        var stopped = MemberRoll.decide("kv", List.of(rack("a", 2, 2, 2), rack("b", 3, 3)), Optional.empty());
        assertThat(stopped.next()).isEmpty();
        assertThat(stopped.reason()).isEqualTo("MemberNotBack");
        assertThat(stopped.message()).contains("kv-a-2").contains("CrashLoopBackOff");
        assertThat(stopped.partitions()).containsEntry("a", 2).containsEntry("b", 3);

        var back = MemberRoll.decide("kv", List.of(rack("a", 2, 2), rack("b", 3, 3)), Optional.empty());
        assertThat(back.next()).contains(new MemberRoll.Step("a", 1, "kv-a-1"));
    }

    @Test
    void theNextRackStartsOnceTheOneBeforeIsDone() {
        var plan = MemberRoll.decide("kv", List.of(rack("a", 0, 0), rack("b", 3, 3)), Optional.empty());
        assertThat(plan.next()).contains(new MemberRoll.Step("b", 2, "kv-b-2"));
        assertThat(plan.updated()).isEqualTo(3);
        assertThat(plan.total()).isEqualTo(6);
    }

    @Test
    void theCanaryStopsOnceThatManyMembersRunTheNewTemplate() {
        var plan = MemberRoll.decide("kv", List.of(rack("a", 2, 2), rack("b", 3, 3)), Optional.of(1));
        assertThat(plan.next()).isEmpty();
        assertThat(plan.reason()).isEqualTo("Canary");
        assertThat(plan.message()).contains("1/6").contains("spec.upgrade.canary");
        assertThat(MemberRoll.decide("kv", List.of(rack("a", 2, 2), rack("b", 3, 3)), Optional.of(2))
                        .next())
                .contains(new MemberRoll.Step("a", 1, "kv-a-1"));
    }

    @Test
    void membersAlreadyOnTheNewRevisionAreSkippedAndADoneClusterRollsNothing() {
        // a roll back to the revision the lower members still run: nothing below the partition is outdated
        var plan = MemberRoll.decide("kv", List.of(rack("a", 2, 0)), Optional.empty());
        assertThat(plan.partitions()).containsEntry("a", 0);
        assertThat(plan.next()).isEmpty();
        var done = MemberRoll.decide("kv", List.of(rack("a", 0, 0)), Optional.empty());
        assertThat(done.rolling()).isFalse();
        assertThat(done.reason()).isEqualTo("Done");
    }

    @Test
    void hintsAreReadFromTheMetrics() {
        assertThat(MemberHints.fromMetrics(200, "# HELP x\ndht_hints_pending 12.0\ndht_hints_bytes 3\n")
                        .pending())
                .isEqualTo(12);
        assertThat(MemberHints.fromMetrics(200, "dht_up 1\n").known()).isFalse();
        assertThat(MemberHints.fromMetrics(401, "").problem()).contains("401");
    }
}
