package dev.dht.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.MemberStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.ScalingStep;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.ClusterShape;
import dev.dht.operator.model.Clusters;
import dev.dht.operator.model.DesiredState;
import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Member;
import dev.dht.operator.reconciler.StatusWrites;
import dev.dht.operator.repair.RepairView;
import dev.dht.operator.scaling.MemberMovement;
import dev.dht.operator.scaling.Refusal;
import dev.dht.operator.scaling.ScaleDecision;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StatusCalculatorTest {
    static final Instant NOW = Instant.parse("2030-01-02T03:04:05Z");

    /** A StatefulSet as the controller reports it. */
    static StatefulSet sts(
            long generation, long observed, int replicas, int ready, int updated, String current, String update) {
        return new StatefulSetBuilder()
                .withNewMetadata()
                .withName("kv")
                .withGeneration(generation)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .endSpec()
                .withNewStatus()
                .withObservedGeneration(observed)
                .withReplicas(replicas)
                .withReadyReplicas(ready)
                .withUpdatedReplicas(updated)
                .withCurrentRevision(current)
                .withUpdateRevision(update)
                .endStatus()
                .build();
    }

    static List<Pod> pods(int count, int ready) {
        return IntStream.range(0, count)
                .mapToObj(i -> new PodBuilder()
                        .withNewMetadata()
                        .withName("kv-" + i)
                        .endMetadata()
                        .withNewStatus()
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus(i < ready ? "True" : "False")
                        .endCondition()
                        .endStatus()
                        .build())
                .toList();
    }

    static DhtClusterStatus previous(Phase phase, int upMembers) {
        var status = new DhtClusterStatus();
        status.phase = phase;
        status.members = new ArrayList<>();
        for (int i = 0; i < upMembers; i++) {
            status.members.add(new MemberStatus("kv-" + i, "url", MemberState.Up, true));
        }
        return status;
    }

    static DhtClusterStatus compute(
            int replicas, DhtClusterStatus previous, Optional<StatefulSet> sts, List<Pod> pods) {
        DhtCluster cluster = Clusters.cluster(s -> s.replicas = replicas);
        cluster.setStatus(previous);
        var desired = DesiredState.of(cluster, ClusterModel.from(cluster, Clusters.PLATFORM), 1);
        return StatusCalculator.compute(cluster, desired, sts.stream().toList(), pods, NOW);
    }

    static final String ROLLED =
            "; each member after the one before serves again with its hints delivered" + " (condition Rolled)";

    static Stream<Arguments> scenarios() {
        return Stream.of(
                Arguments.of(
                        "new cluster, nothing observed yet",
                        3,
                        null,
                        Optional.empty(),
                        pods(0, 0),
                        Phase.Creating,
                        "Creating",
                        "creating 3 members: 0/3 members ready"),
                Arguments.of(
                        "first rollout, two of three ready",
                        3,
                        previous(Phase.Creating, 0),
                        Optional.of(sts(1, 1, 3, 2, 3, "r1", "r1")),
                        pods(3, 2),
                        Phase.Creating,
                        "Creating",
                        "creating 3 members: 2/3 members ready"),
                Arguments.of(
                        "all ready",
                        3,
                        previous(Phase.Creating, 0),
                        Optional.of(sts(1, 1, 3, 3, 3, "r1", "r1")),
                        pods(3, 3),
                        Phase.Ready,
                        "AllMembersReady",
                        "3/3 members ready"),
                Arguments.of(
                        "scaled up, new members starting",
                        5,
                        previous(Phase.Ready, 3),
                        Optional.of(sts(2, 1, 3, 3, 3, "r1", "r1")),
                        pods(3, 3),
                        Phase.Scaling,
                        "Scaling",
                        "scaling to 5 members: 3/5 members ready"),
                Arguments.of(
                        "template changed, controller has not seen it",
                        3,
                        previous(Phase.Ready, 3),
                        Optional.of(sts(2, 1, 3, 3, 3, "r1", "r1")),
                        pods(3, 3),
                        Phase.Updating,
                        "RollingUpdate",
                        "rolling update, one member at a time: 3/3 members on the new pod template, 3/3 members ready"
                                + ROLLED),
                Arguments.of(
                        "rolling update halfway",
                        3,
                        previous(Phase.Ready, 3),
                        Optional.of(sts(2, 2, 3, 2, 1, "r1", "r2")),
                        pods(3, 2),
                        Phase.Updating,
                        "RollingUpdate",
                        "rolling update, one member at a time: 1/3 members on the new pod template, 2/3 members ready"
                                + ROLLED),
                Arguments.of(
                        "rolled out, one member down",
                        3,
                        previous(Phase.Ready, 3),
                        Optional.of(sts(1, 1, 3, 2, 3, "r1", "r1")),
                        pods(3, 2),
                        Phase.Degraded,
                        "MembersNotReady",
                        "2/3 members ready; not ready: kv-2"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void phaseAndConditionsFollowTheRollout(
            String name,
            int replicas,
            DhtClusterStatus previous,
            Optional<StatefulSet> sts,
            List<Pod> pods,
            Phase phase,
            String reason,
            String message) {
        var status = compute(replicas, previous, sts, pods);
        assertThat(status.phase).isEqualTo(phase);
        var ready = Conditions.find(status.conditions, Conditions.READY).orElseThrow();
        assertThat(ready.getStatus()).isEqualTo(phase == Phase.Ready ? "True" : "False");
        assertThat(ready.getReason()).isEqualTo(reason);
        assertThat(ready.getMessage()).isEqualTo(message);
        boolean progressing = phase == Phase.Creating || phase == Phase.Scaling || phase == Phase.Updating;
        assertThat(Conditions.isTrue(status.conditions, Conditions.PROGRESSING)).isEqualTo(progressing);
        assertThat(Conditions.isTrue(status.conditions, Conditions.DEGRADED)).isEqualTo(phase == Phase.Degraded);
        assertThat(status.conditions)
                .allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(1L));
    }

    @Test
    void newMembersJoinAndEstablishedOnesStayUpWhenTheirPodIsNotReady() {
        var status = compute(5, previous(Phase.Ready, 3), Optional.of(sts(2, 1, 3, 3, 3, "r1", "r1")), pods(4, 2));
        assertThat(status.members)
                .extracting(m -> m.state)
                .containsExactly(
                        MemberState.Up, MemberState.Up, MemberState.Up, MemberState.Joining, MemberState.Joining);
        assertThat(status.members).extracting(m -> m.ready).containsExactly(true, true, false, false, false);
        assertThat(status.readyReplicas).isEqualTo(2);
        assertThat(status.members.get(4).url).isEqualTo("http://kv-4.kv-headless.prod.svc.cluster.local:8080");
        assertThat(status.selector)
                .isEqualTo("app.kubernetes.io/name=dht,app.kubernetes.io/instance=kv,"
                        + "app.kubernetes.io/component=node");
    }

    @Test
    void equalObservationsGiveAnEqualStatusSoNothingIsWritten() {
        var first = compute(3, previous(Phase.Creating, 0), Optional.of(sts(1, 1, 3, 3, 3, "r1", "r1")), pods(3, 3));
        DhtCluster cluster = Clusters.cluster(s -> s.replicas = 3);
        cluster.setStatus(first);
        var desired = DesiredState.of(cluster, ClusterModel.from(cluster, Clusters.PLATFORM), 1);
        var second = StatusCalculator.compute(
                cluster, desired, List.of(sts(1, 1, 3, 3, 3, "r1", "r1")), pods(3, 3), NOW.plusSeconds(3600));
        assertThat(StatusWrites.same(second, first))
                .as("the same status as the stored one:%n%s%n%s", second, first)
                .isTrue();
    }

    @Test
    void aConditionKeepsItsTransitionTimeUntilItsStatusFlips() {
        var ready = compute(3, previous(Phase.Creating, 0), Optional.of(sts(1, 1, 3, 3, 3, "r1", "r1")), pods(3, 3));
        DhtCluster cluster = Clusters.cluster(s -> s.replicas = 3);
        cluster.setStatus(ready);
        var desired = DesiredState.of(cluster, ClusterModel.from(cluster, Clusters.PLATFORM), 1);
        var later = NOW.plusSeconds(60);
        var degraded =
                StatusCalculator.compute(cluster, desired, List.of(sts(1, 1, 3, 2, 3, "r1", "r1")), pods(3, 2), later);
        assertThat(Conditions.find(degraded.conditions, Conditions.READY)
                        .orElseThrow()
                        .getLastTransitionTime())
                .isEqualTo(later.toString());
        assertThat(Conditions.find(degraded.conditions, Conditions.PROGRESSING)
                        .orElseThrow()
                        .getLastTransitionTime())
                .as("Progressing stayed False")
                .isEqualTo(NOW.toString());
    }

    /** The status of five members all up and rolled out, under a scale decision (no rack, upgrade or repair view). */
    static DhtClusterStatus fiveMembers(DhtCluster cluster, DesiredState desired, ScaleDecision decision) {
        return StatusCalculator.compute(
                cluster,
                desired,
                List.of(sts(1, 1, 5, 5, 5, "r1", "r1")),
                pods(5, 5),
                decision,
                Optional.empty(),
                Optional.empty(),
                RepairView.none(),
                NOW);
    }

    static MemberMovement report(MemberMovement.State state, long keysLeft) {
        return new MemberMovement(
                state,
                true,
                state == MemberMovement.State.IDLE ? "stable" : "joint",
                List.of(),
                keysLeft,
                keysLeft * 10,
                false,
                false,
                null,
                state == MemberMovement.State.UNKNOWN ? "timed out" : null);
    }

    @Test
    void aScaleDownInProgressShowsTheLeavingMemberAndTheMembersProgress() {
        DhtCluster cluster = Clusters.cluster(s -> s.replicas = 3);
        var before = previous(Phase.Ready, 5);
        before.topologyVersion = 1L;
        before.settledTopologyVersion = 1L;
        cluster.setStatus(before);
        var model = ClusterModel.from(cluster, Clusters.PLATFORM);
        var desired = DesiredState.of(cluster, model, new ClusterShape(Layout.single(5), Layout.single(4), 2));
        var reports = new HashMap<Member, MemberMovement>();
        for (int i = 0; i < 4; i++) {
            reports.put(Member.of(i), report(MemberMovement.State.IDLE, 0));
        }
        reports.put(Member.of(4), report(MemberMovement.State.MOVING, 1200));
        var decision = new ScaleDecision(
                Layout.single(5),
                Layout.single(4),
                Layout.single(3),
                false,
                Optional.of(ScalingStep.MovingData),
                List.of(Member.of(4)),
                reports);
        var status = fiveMembers(cluster, desired, decision);

        assertThat(status.phase).isEqualTo(Phase.Scaling);
        assertThat(status.members).extracting(m -> m.name).containsExactly("kv-0", "kv-1", "kv-2", "kv-3", "kv-4");
        assertThat(status.members)
                .extracting(m -> m.state)
                .containsExactly(MemberState.Up, MemberState.Up, MemberState.Up, MemberState.Up, MemberState.Draining);
        assertThat(status.members.get(4).movement).isEqualTo("moving");
        assertThat(status.members.get(4).keysLeft).isEqualTo(1200L);
        assertThat(status.members.get(0).keysLeft).isNull();
        assertThat(status.readyReplicas).as("members up to spec.replicas").isEqualTo(3);
        assertThat(status.scaling.step).isEqualTo(ScalingStep.MovingData);
        assertThat(status.scaling.leaving).containsExactly("kv-4");
        assertThat(status.scaling.membersIdle).isEqualTo(4);
        assertThat(status.scaling.membersPolled).isEqualTo(5);
        assertThat(status.scaling.keysLeft).isEqualTo(1200L);
        assertThat(status.scaling.bytesLeft).isEqualTo(12000L);
        assertThat(status.scaling.topologyMembers).isEqualTo(4);
        assertThat(status.scaling.statefulSetReplicas).isEqualTo(5);
        assertThat(status.topologyVersion).isEqualTo(2L);
        assertThat(status.settledTopologyVersion).as("the move is not done").isEqualTo(1L);
        assertThat(Conditions.find(status.conditions, Conditions.READY)
                        .orElseThrow()
                        .getMessage())
                .isEqualTo(
                        "scaling to 3 members: kv-4 leaving; moving data on a topology of 4 members: 4/5 idle, 1200 keys and"
                                + " 12000 bytes left; kv-4 moving (1200 keys left)");
        assertThat(Conditions.isTrue(status.conditions, Conditions.PROGRESSING)).isTrue();
    }

    @Test
    void aSettledScaleEndsReadyWithoutProgressAndRecordsTheSettledVersion() {
        DhtCluster cluster = Clusters.cluster(s -> s.replicas = 5);
        var before = previous(Phase.Scaling, 3);
        before.topologyVersion = 2L;
        before.settledTopologyVersion = 1L;
        cluster.setStatus(before);
        var desired = DesiredState.of(cluster, ClusterModel.from(cluster, Clusters.PLATFORM), 2);
        var reports = new HashMap<Member, MemberMovement>();
        for (int i = 0; i < 5; i++) {
            reports.put(Member.of(i), report(MemberMovement.State.IDLE, 0));
        }
        var decision = ScaleDecision.steady(Layout.single(5), reports);
        var status = fiveMembers(cluster, desired, decision);
        assertThat(status.phase).isEqualTo(Phase.Ready);
        assertThat(status.scaling).isNull();
        assertThat(status.settledTopologyVersion).isEqualTo(2L);
        assertThat(status.members).extracting(m -> m.state).containsOnly(MemberState.Up);
        assertThat(status.members).allSatisfy(m -> assertThat(m.movement).isNull());
    }

    @Test
    void aRefusalIsACondition() {
        DhtCluster cluster = Clusters.cluster(s -> s.replicas = 3);
        cluster.setStatus(previous(Phase.Ready, 3));
        var desired = DesiredState.of(cluster, ClusterModel.from(cluster, Clusters.PLATFORM), 1);
        var decision = ScaleDecision.steady(Layout.single(3), java.util.Map.of());
        var refused = StatusCalculator.compute(
                cluster,
                desired,
                List.of(sts(1, 1, 3, 3, 3, "r1", "r1")),
                pods(3, 3),
                decision,
                Optional.of(new Refusal("SomethingHeld", "what and why")),
                Optional.empty(),
                RepairView.none(),
                NOW);
        var condition = Conditions.find(refused.conditions, Conditions.REFUSED).orElseThrow();
        assertThat(condition.getStatus()).isEqualTo("True");
        assertThat(condition.getReason()).isEqualTo("SomethingHeld");
        assertThat(condition.getMessage()).isEqualTo("what and why");
        var fine = StatusCalculator.compute(cluster, desired, List.of(sts(1, 1, 3, 3, 3, "r1", "r1")), pods(3, 3), NOW);
        assertThat(Conditions.isTrue(fine.conditions, Conditions.REFUSED)).isFalse();
        cluster.setStatus(refused);
        assertThat(Conditions.isTrue(StatusCalculator.failed(cluster, "boom", NOW).conditions, Conditions.REFUSED))
                .as("a failure keeps the refusal")
                .isTrue();
    }

    @Test
    void aFailureKeepsWhatWasObservedAndSaysWhy() {
        DhtCluster cluster = Clusters.cluster(s -> s.replicas = 3);
        cluster.setStatus(
                compute(3, previous(Phase.Creating, 0), Optional.of(sts(1, 1, 3, 3, 3, "r1", "r1")), pods(3, 3)));
        var failed = StatusCalculator.failed(cluster, "x".repeat(5000), NOW);
        assertThat(failed.phase).isEqualTo(Phase.Failed);
        assertThat(failed.readyReplicas).isEqualTo(3);
        assertThat(failed.members).hasSize(3);
        var ready = Conditions.find(failed.conditions, Conditions.READY).orElseThrow();
        assertThat(ready.getReason()).isEqualTo("ReconcileFailed");
        assertThat(ready.getMessage()).hasSize(StatusCalculator.MAX_MESSAGE).endsWith("...");
        assertThat(Conditions.isTrue(failed.conditions, Conditions.DEGRADED)).isTrue();
    }
}
