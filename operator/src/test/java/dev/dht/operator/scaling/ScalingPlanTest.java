package dev.dht.operator.scaling;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.ScalingStep;
import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Member;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The scaling state machine, step by step, with member reports standing in for the nodes: a cluster without racks
 * here (one implicit rack), racks in {@link RackScalingTest}.
 */
class ScalingPlanTest {
    static List<String> list(int n) {
        return IntStream.range(0, n)
                .mapToObj(i -> "http://kv-" + i + ".kv-headless.prod.svc.cluster.local:8080")
                .toList();
    }

    static Set<Member> ready(int... ordinals) {
        return IntStream.of(ordinals).mapToObj(Member::of).collect(Collectors.toSet());
    }

    static Set<Member> readyUpTo(int n) {
        return IntStream.range(0, n).mapToObj(Member::of).collect(Collectors.toSet());
    }

    /** A cluster without racks: {@code sts} pods, the topology listing the first {@code members} (none: no topology). */
    static ScaleObservation observation(
            int target,
            int sts,
            Optional<Integer> members,
            boolean settled,
            Set<Member> ready,
            boolean rolledOut,
            boolean retain) {
        return new ScaleObservation(
                target,
                Set.of(),
                Optional.of(Layout.single(sts)),
                members.map(ScalingPlanTest::list),
                Layout.single(members.orElse(0)),
                settled,
                ready,
                rolledOut,
                retain);
    }

    static ScaleObservation observe(int target, int sts, int members, boolean settled, Set<Member> ready) {
        return observation(target, sts, Optional.of(members), settled, ready, true, false);
    }

    /** As the node answers when it is done with {@code members} (and is or is not one of them). */
    static MemberMovement idle(int members, boolean member) {
        return new MemberMovement(
                MemberMovement.State.IDLE,
                member,
                "stable",
                list(members).stream().sorted().toList(),
                0,
                0,
                false,
                false,
                null,
                null);
    }

    static MemberMovement moving(int members, long keysLeft) {
        return new MemberMovement(
                MemberMovement.State.MOVING,
                true,
                "joint",
                list(members),
                keysLeft,
                keysLeft * 100,
                false,
                false,
                "members still sending",
                null);
    }

    static Map<Member, MemberMovement> reports(int count, java.util.function.IntFunction<MemberMovement> report) {
        var out = new HashMap<Member, MemberMovement>();
        IntStream.range(0, count).forEach(i -> out.put(Member.of(i), report.apply(i)));
        return out;
    }

    static List<Integer> ordinals(List<Member> members) {
        return members.stream().map(Member::ordinal).toList();
    }

    @Test
    void aNewClusterListsEveryMemberAndHasNothingToMove() {
        var o = new ScaleObservation(
                3, Set.of(), Optional.empty(), Optional.empty(), Layout.single(0), false, Set.of(), true, false);
        assertThat(ordinals(ScalingPlan.toPoll(o))).isEmpty();
        var d = ScalingPlan.decide(o, Map.of());
        assertThat(d.statefulSetReplicas().total()).isEqualTo(3);
        assertThat(d.topologyMembers().total()).isEqualTo(3);
        assertThat(d.settled()).isTrue();
        assertThat(d.steady()).isTrue();
    }

    @Test
    void aSettledClusterAtItsSizeIsSteadyAndAsksNobody() {
        var o = observe(3, 3, 3, true, readyUpTo(3));
        assertThat(ordinals(ScalingPlan.toPoll(o))).isEmpty();
        var d = ScalingPlan.decide(o, Map.of());
        assertThat(d.steady()).isTrue();
        assertThat(d.statefulSetReplicas().total()).isEqualTo(3);
        assertThat(d.topologyMembers().total()).isEqualTo(3);
    }

    @Test
    void scaleUpGrowsTheStatefulSetFirstAndListsTheNewMembersOnlyOnceTheyAreReady() {
        var grow = ScalingPlan.decide(observe(5, 3, 3, true, readyUpTo(3)), Map.of());
        assertThat(grow.statefulSetReplicas().total()).isEqualTo(5);
        assertThat(grow.topologyMembers().total()).as("the topology waits").isEqualTo(3);
        assertThat(grow.step()).contains(ScalingStep.StartingMembers);
        assertThat(grow.settled()).isTrue();

        var oneReady = ScalingPlan.decide(observe(5, 5, 3, true, ready(0, 1, 2, 4)), Map.of());
        assertThat(oneReady.topologyMembers().total()).isEqualTo(3);
        assertThat(oneReady.statefulSetReplicas().total()).isEqualTo(5);
        assertThat(oneReady.step()).contains(ScalingStep.StartingMembers);

        var bothReady = ScalingPlan.decide(observe(5, 5, 3, true, readyUpTo(5)), Map.of());
        assertThat(bothReady.topologyMembers().total()).isEqualTo(5);
        assertThat(bothReady.statefulSetReplicas().total()).isEqualTo(5);
        assertThat(bothReady.step()).contains(ScalingStep.MovingData);
        assertThat(bothReady.settled()).as("a new topology is not settled").isFalse();
    }

    @Test
    void aChangedTopologyIsDoneOnlyWhenEveryMemberIsIdleOnIt() {
        var o = observe(5, 5, 5, false, readyUpTo(5));
        assertThat(ordinals(ScalingPlan.toPoll(o))).containsExactly(0, 1, 2, 3, 4);

        var moving = ScalingPlan.decide(o, reports(5, i -> i < 3 ? moving(5, 100) : idle(5, true)));
        assertThat(moving.step()).contains(ScalingStep.MovingData);
        assertThat(moving.settled()).isFalse();
        assertThat(moving.reports()).hasSize(5);

        var oldList = ScalingPlan.decide(o, reports(5, i -> idle(3, i < 3)));
        assertThat(oldList.settled())
                .as("idle on the old list: the move has not started")
                .isFalse();

        var missing = ScalingPlan.decide(o, reports(4, i -> idle(5, true)));
        assertThat(missing.settled()).as("one member did not answer").isFalse();

        var unknown =
                ScalingPlan.decide(o, reports(5, i -> i == 4 ? MemberMovement.unknown("timed out") : idle(5, true)));
        assertThat(unknown.settled()).isFalse();

        var done = ScalingPlan.decide(o, reports(5, i -> idle(5, true)));
        assertThat(done.settled()).isTrue();
        assertThat(done.steady()).isTrue();
        assertThat(done.topologyMembers().total()).isEqualTo(5);
        assertThat(done.statefulSetReplicas().total()).isEqualTo(5);
    }

    @Test
    void scaleDownDropsTheHighestMemberFromTheTopologyFirstAndKeepsItsPod() {
        var d = ScalingPlan.decide(observe(3, 5, 5, true, readyUpTo(5)), Map.of());
        assertThat(d.topologyMembers().total()).isEqualTo(4);
        assertThat(d.statefulSetReplicas().total())
                .as("the leaving member keeps running")
                .isEqualTo(5);
        assertThat(ordinals(d.leaving())).containsExactly(4);
        assertThat(d.step()).contains(ScalingStep.MovingData);
        assertThat(d.settled()).isFalse();
    }

    @Test
    void theStatefulSetShrinksOnlyWhenTheLeavingMemberIsDoneToo() {
        var o = observe(3, 5, 4, false, readyUpTo(5));
        assertThat(ordinals(ScalingPlan.toPoll(o)))
                .as("the members and the leaving one")
                .containsExactly(0, 1, 2, 3, 4);

        var leavingMoves = ScalingPlan.decide(o, reports(5, i -> i == 4 ? moving(4, 5000) : idle(4, true)));
        assertThat(leavingMoves.statefulSetReplicas().total()).isEqualTo(5);
        assertThat(leavingMoves.topologyMembers().total()).isEqualTo(4);
        assertThat(leavingMoves.step()).contains(ScalingStep.MovingData);
        assertThat(ordinals(leavingMoves.leaving())).containsExactly(4);

        var stillMember = ScalingPlan.decide(o, reports(5, i -> idle(4, true)));
        assertThat(stillMember.settled())
                .as("a leaving pod must report it is no member")
                .isFalse();

        var done = ScalingPlan.decide(o, reports(5, i -> idle(4, i < 4)));
        assertThat(done.settled()).isTrue();
        assertThat(done.statefulSetReplicas().total()).as("now it goes").isEqualTo(4);
        assertThat(done.topologyMembers().total()).isEqualTo(4);
        assertThat(done.step()).contains(ScalingStep.RemovingMember);
        assertThat(ordinals(done.leaving())).containsExactly(4);

        // Next reconcile: the StatefulSet has shrunk, the topology settled: the next member leaves.
        var next = ScalingPlan.decide(observe(3, 4, 4, true, readyUpTo(4)), Map.of());
        assertThat(next.topologyMembers().total()).isEqualTo(3);
        assertThat(next.statefulSetReplicas().total()).isEqualTo(4);
        assertThat(ordinals(next.leaving())).containsExactly(3);

        var last = ScalingPlan.decide(observe(3, 4, 3, false, readyUpTo(4)), reports(4, i -> idle(3, i < 3)));
        assertThat(last.statefulSetReplicas().total()).isEqualTo(3);
        var end = ScalingPlan.decide(observe(3, 3, 3, true, readyUpTo(3)), Map.of());
        assertThat(end.steady()).isTrue();
    }

    @Test
    void aKeptVolumeWaitsForTheLeavingMembersCleanup() {
        var o = observation(3, 4, Optional.of(3), false, readyUpTo(4), true, true);
        var cleaning =
                new MemberMovement(MemberMovement.State.IDLE, false, "stable", list(3), 0, 0, true, false, null, null);
        var pending = ScalingPlan.decide(o, reports(4, i -> i == 3 ? cleaning : idle(3, true)));
        assertThat(pending.settled()).isFalse();
        assertThat(pending.statefulSetReplicas().total()).isEqualTo(4);
        var cleaned = ScalingPlan.decide(o, reports(4, i -> idle(3, i < 3)));
        assertThat(cleaned.statefulSetReplicas().total()).isEqualTo(3);

        var deleted = observation(3, 4, Optional.of(3), false, readyUpTo(4), true, false);
        assertThat(ScalingPlan.decide(deleted, reports(4, i -> i == 3 ? cleaning : idle(3, true)))
                        .settled())
                .as("a volume that goes anyway needs no cleanup first")
                .isTrue();
    }

    @Test
    void aLeavingPodThatIsNotReadyIsNotWaitedForOnceTheMembersAreDone() {
        var o = observe(3, 4, 3, false, readyUpTo(3));
        assertThat(ordinals(ScalingPlan.toPoll(o))).containsExactly(0, 1, 2);
        var d = ScalingPlan.decide(o, reports(3, i -> idle(3, true)));
        assertThat(d.settled()).isTrue();
        assertThat(d.statefulSetReplicas().total()).isEqualTo(3);
    }

    @Test
    void topologyChangesWaitForARollingUpdate() {
        var down = observation(3, 4, Optional.of(4), true, readyUpTo(4), false, false);
        var d = ScalingPlan.decide(down, Map.of());
        assertThat(d.topologyMembers().total()).isEqualTo(4);
        assertThat(d.step()).contains(ScalingStep.WaitingForRollout);

        var up = observation(5, 5, Optional.of(3), true, readyUpTo(5), false, false);
        var u = ScalingPlan.decide(up, Map.of());
        assertThat(u.topologyMembers().total()).isEqualTo(3);
        assertThat(u.step()).contains(ScalingStep.WaitingForRollout);
    }

    @Test
    void scalingUpAgainDuringAScaleDownTakesTheLeavingMemberBack() {
        var d = ScalingPlan.decide(observe(5, 5, 4, false, readyUpTo(5)), reports(5, i -> moving(4, 10)));
        assertThat(d.topologyMembers().total())
                .as("the nodes queue the new list behind the move")
                .isEqualTo(5);
        assertThat(d.statefulSetReplicas().total()).isEqualTo(5);
        assertThat(ordinals(d.leaving())).isEmpty();
    }

    @Test
    void anAbandonedScaleUpRemovesThePodsThatNeverJoined() {
        var d = ScalingPlan.decide(observe(3, 5, 3, true, readyUpTo(3)), Map.of());
        assertThat(d.statefulSetReplicas().total()).isEqualTo(3);
        assertThat(d.topologyMembers().total()).isEqualTo(3);
        assertThat(d.step()).contains(ScalingStep.RemovingMember);
        assertThat(ordinals(d.leaving())).containsExactly(3, 4);
    }

    @Test
    void aTopologyMoveInProgressKeepsEveryPodEvenWhenTheSpecShrinks() {
        var d = ScalingPlan.decide(observe(3, 5, 5, false, readyUpTo(5)), reports(5, i -> moving(5, 1)));
        assertThat(d.statefulSetReplicas().total()).isEqualTo(5);
        assertThat(d.topologyMembers().total()).as("one move at a time").isEqualTo(5);
        assertThat(d.step()).contains(ScalingStep.MovingData);
    }

    @Test
    void aStatefulSetShrunkByHandIsRestored() {
        var d = ScalingPlan.decide(observe(5, 3, 5, true, readyUpTo(3)), Map.of());
        assertThat(d.statefulSetReplicas().total()).isEqualTo(5);
        assertThat(d.topologyMembers().total()).isEqualTo(5);
        assertThat(d.step()).contains(ScalingStep.StartingMembers);
    }

    @Test
    void podsWithoutTheirTopologyGetOneListingThemThatTheMembersMustConfirm() {
        var o = observation(5, 3, Optional.empty(), false, readyUpTo(3), true, false);
        assertThat(ordinals(ScalingPlan.toPoll(o))).isEmpty();
        var d = ScalingPlan.decide(o, Map.of());
        assertThat(d.topologyMembers().total()).isEqualTo(3);
        assertThat(d.statefulSetReplicas().total()).isEqualTo(3);
        assertThat(d.settled()).isFalse();
    }

    @Test
    void aRestartedOperatorDerivesTheSameStepFromWhatItObserves() {
        // Half-way through 5 -> 3: topology 4, StatefulSet 5, not settled. Nothing else is known after a restart.
        var o = observe(3, 5, 4, false, readyUpTo(5));
        var first = ScalingPlan.decide(o, reports(5, i -> i == 4 ? moving(4, 10) : idle(4, true)));
        var again = ScalingPlan.decide(o, reports(5, i -> i == 4 ? moving(4, 10) : idle(4, true)));
        assertThat(again).isEqualTo(first);
        assertThat(first.topologyMembers().total())
                .as("not a second member at once")
                .isEqualTo(4);
        assertThat(first.statefulSetReplicas().total()).isEqualTo(5);
    }
}
