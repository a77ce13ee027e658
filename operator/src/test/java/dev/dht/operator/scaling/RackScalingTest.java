package dev.dht.operator.scaling;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.ScalingStep;
import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Member;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The scaling state machine with racks: which racks grow, who leaves, a drain; members stand in for the nodes. */
class RackScalingTest {
    static final List<String> ABC = List.of("a", "b", "c");

    static Layout of(int... counts) {
        return Layout.of(ABC, counts);
    }

    static String url(Member m) {
        return "http://kv-" + m.rack() + "-" + m.ordinal() + ".kv-headless.prod.svc.cluster.local:8080";
    }

    static List<String> lines(Layout members) {
        return members.members().stream().map(m -> m.rack() + "=" + url(m)).toList();
    }

    static Set<Member> allReady(Layout pods) {
        return new HashSet<>(pods.members());
    }

    static ScaleObservation observe(int target, Set<String> drained, Layout sts, Layout members, boolean settled) {
        return new ScaleObservation(
                target,
                drained,
                Optional.of(sts),
                Optional.of(lines(members)),
                members,
                settled,
                allReady(sts),
                true,
                false);
    }

    /** Every pod idle on {@code members}; pods beyond it report they are no member. */
    static Map<Member, MemberMovement> idleOn(Layout sts, Layout members) {
        var urls = members.members().stream().map(RackScalingTest::url).sorted().toList();
        var out = new HashMap<Member, MemberMovement>();
        sts.members()
                .forEach(m -> out.put(
                        m,
                        new MemberMovement(
                                MemberMovement.State.IDLE,
                                members.contains(m),
                                "stable",
                                urls,
                                0,
                                0,
                                false,
                                false,
                                null,
                                null)));
        return out;
    }

    /** Runs the plan as the reconciler would, the members settling each move at once, until it is steady. */
    static List<String> run(int target, Set<String> drained, Layout from) {
        var steps = new java.util.ArrayList<String>();
        Layout sts = from;
        Layout members = from;
        boolean settled = true;
        for (int i = 0; i < 50; i++) {
            var d = ScalingPlan.decide(observe(target, drained, sts, members, settled), idleOn(sts, members));
            if (d.steady()) {
                return steps;
            }
            steps.add(d.step().orElseThrow() + " sts " + d.statefulSetReplicas() + " topology " + d.topologyMembers());
            settled = d.settled() && d.topologyMembers().equals(members);
            sts = d.statefulSetReplicas();
            members = d.topologyMembers();
        }
        throw new AssertionError("no steady state after 50 steps: " + steps);
    }

    @Test
    void scaleUpGrowsTheRacksWithTheFewestMembersAndListsThemInOneMove() {
        assertThat(run(9, Set.of(), of(3, 2, 2)))
                .containsExactly(
                        "StartingMembers sts a=3,b=3,c=3 topology a=3,b=2,c=2",
                        "MovingData sts a=3,b=3,c=3 topology a=3,b=3,c=3");
    }

    @Test
    void anAppendedRackTakesTheNewMembers() {
        assertThat(run(9, Set.of(), of(3, 3, 0)))
                .containsExactly(
                        "StartingMembers sts a=3,b=3,c=3 topology a=3,b=3,c=0",
                        "MovingData sts a=3,b=3,c=3 topology a=3,b=3,c=3");
    }

    @Test
    void scaleDownTakesOneMemberAtATimeFromTheRackFurthestAboveItsShareHighestOrdinalFirst() {
        assertThat(run(6, Set.of(), of(3, 3, 3)))
                .containsExactly(
                        "MovingData sts a=3,b=3,c=3 topology a=3,b=3,c=2",
                        "RemovingMember sts a=3,b=3,c=2 topology a=3,b=3,c=2",
                        "MovingData sts a=3,b=3,c=2 topology a=3,b=2,c=2",
                        "RemovingMember sts a=3,b=2,c=2 topology a=3,b=2,c=2",
                        "MovingData sts a=3,b=2,c=2 topology a=2,b=2,c=2",
                        "RemovingMember sts a=2,b=2,c=2 topology a=2,b=2,c=2");
    }

    @Test
    void aDrainedRackEmptiesAfterTheOthersGrewToKeepTheTotal() {
        assertThat(run(6, Set.of("c"), of(2, 2, 2)))
                .containsExactly(
                        "StartingMembers sts a=3,b=3,c=2 topology a=2,b=2,c=2",
                        "MovingData sts a=3,b=3,c=2 topology a=3,b=3,c=2",
                        "MovingData sts a=3,b=3,c=2 topology a=3,b=3,c=1",
                        "RemovingMember sts a=3,b=3,c=1 topology a=3,b=3,c=1",
                        "MovingData sts a=3,b=3,c=1 topology a=3,b=3,c=0",
                        "RemovingMember sts a=3,b=3,c=0 topology a=3,b=3,c=0");
    }

    @Test
    void theLeavingMemberIsTheRacksHighestOrdinalAndItsPodStaysUntilItHandedOver() {
        var o = observe(8, Set.of(), of(3, 3, 3), of(3, 3, 3), true);
        var d = ScalingPlan.decide(o, Map.of());
        assertThat(d.topologyMembers()).isEqualTo(of(3, 3, 2));
        assertThat(d.statefulSetReplicas()).isEqualTo(of(3, 3, 3));
        assertThat(d.leaving()).containsExactly(new Member("c", 2));
        var moving = observe(8, Set.of(), of(3, 3, 3), of(3, 3, 2), false);
        assertThat(ScalingPlan.toPoll(moving))
                .as("every member and the leaving one")
                .hasSize(9)
                .contains(new Member("c", 2));
        var still = ScalingPlan.decide(moving, Map.of(new Member("c", 2), MemberMovement.unknown("timed out")));
        assertThat(still.statefulSetReplicas()).isEqualTo(of(3, 3, 3));
        assertThat(still.step()).contains(ScalingStep.MovingData);
    }

    @Test
    void newMembersAreListedOnlyOnceEveryOneIsReady() {
        var o = new ScaleObservation(
                9,
                Set.of(),
                Optional.of(of(3, 3, 3)),
                Optional.of(lines(of(3, 2, 2))),
                of(3, 2, 2),
                true,
                Set.of(new Member("a", 0), new Member("b", 2)),
                true,
                false);
        var d = ScalingPlan.decide(o, Map.of());
        assertThat(d.step()).contains(ScalingStep.StartingMembers);
        assertThat(d.topologyMembers()).isEqualTo(of(3, 2, 2));
        assertThat(d.target()).isEqualTo(of(3, 3, 3));
    }

    @Test
    void aRollingUpdateHoldsTheTopology() {
        var o = new ScaleObservation(
                6,
                Set.of(),
                Optional.of(of(3, 3, 3)),
                Optional.of(lines(of(3, 3, 3))),
                of(3, 3, 3),
                true,
                allReady(of(3, 3, 3)),
                false,
                false);
        assertThat(ScalingPlan.decide(o, Map.of()).step()).contains(ScalingStep.WaitingForRollout);
        assertThat(ScalingPlan.decide(o, Map.of()).topologyMembers()).isEqualTo(of(3, 3, 3));
    }
}
