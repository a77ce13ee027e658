package dev.dht.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.MemberStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Clusters;
import dev.dht.operator.model.DesiredState;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.time.Instant;
import java.util.ArrayList;
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
  static StatefulSet sts(long generation, long observed, int replicas, int ready, int updated, String current,
      String update) {
    return new StatefulSetBuilder()
        .withNewMetadata().withName("kv").withGeneration(generation).endMetadata()
        .withNewSpec().withReplicas(replicas).endSpec()
        .withNewStatus().withObservedGeneration(observed).withReplicas(replicas).withReadyReplicas(ready)
          .withUpdatedReplicas(updated).withCurrentRevision(current).withUpdateRevision(update).endStatus()
        .build();
  }

  static List<Pod> pods(int count, int ready) {
    return IntStream.range(0, count).mapToObj(i -> new PodBuilder()
        .withNewMetadata().withName("kv-" + i).endMetadata()
        .withNewStatus().addNewCondition().withType("Ready").withStatus(i < ready ? "True" : "False").endCondition()
        .endStatus().build()).toList();
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

  static DhtClusterStatus compute(int replicas, DhtClusterStatus previous, Optional<StatefulSet> sts, List<Pod> pods) {
    DhtCluster cluster = Clusters.cluster(s -> s.replicas = replicas);
    cluster.setStatus(previous);
    var desired = DesiredState.of(cluster, ClusterModel.from(cluster, Clusters.PLATFORM), 1);
    return StatusCalculator.compute(cluster, desired, sts, pods, NOW);
  }

  static Stream<Arguments> scenarios() {
    return Stream.of(
        Arguments.of("new cluster, nothing observed yet", 3, null, Optional.empty(), pods(0, 0), Phase.Creating,
            "Creating", "creating 3 members: 0/3 members ready"),
        Arguments.of("first rollout, two of three ready", 3, previous(Phase.Creating, 0),
            Optional.of(sts(1, 1, 3, 2, 3, "r1", "r1")), pods(3, 2), Phase.Creating, "Creating",
            "creating 3 members: 2/3 members ready"),
        Arguments.of("all ready", 3, previous(Phase.Creating, 0), Optional.of(sts(1, 1, 3, 3, 3, "r1", "r1")),
            pods(3, 3), Phase.Ready, "AllMembersReady", "3/3 members ready"),
        Arguments.of("scaled up, new members starting", 5, previous(Phase.Ready, 3),
            Optional.of(sts(2, 1, 3, 3, 3, "r1", "r1")), pods(3, 3), Phase.Scaling, "Scaling",
            "scaling to 5 members: 3/5 members ready"),
        Arguments.of("template changed, controller has not seen it", 3, previous(Phase.Ready, 3),
            Optional.of(sts(2, 1, 3, 3, 3, "r1", "r1")), pods(3, 3), Phase.Updating, "RollingUpdate",
            "rolling update, one member at a time: 3/3 members on the new pod template, 3/3 members ready"),
        Arguments.of("rolling update halfway", 3, previous(Phase.Ready, 3),
            Optional.of(sts(2, 2, 3, 2, 1, "r1", "r2")), pods(3, 2), Phase.Updating, "RollingUpdate",
            "rolling update, one member at a time: 1/3 members on the new pod template, 2/3 members ready"),
        Arguments.of("rolled out, one member down", 3, previous(Phase.Ready, 3),
            Optional.of(sts(1, 1, 3, 2, 3, "r1", "r1")), pods(3, 2), Phase.Degraded, "MembersNotReady",
            "2/3 members ready; not ready: kv-2"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void phaseAndConditionsFollowTheRollout(String name, int replicas, DhtClusterStatus previous,
      Optional<StatefulSet> sts, List<Pod> pods, Phase phase, String reason, String message) {
    var status = compute(replicas, previous, sts, pods);
    assertThat(status.phase).isEqualTo(phase);
    var ready = Conditions.find(status.conditions, Conditions.READY).orElseThrow();
    assertThat(ready.getStatus()).isEqualTo(phase == Phase.Ready ? "True" : "False");
    assertThat(ready.getReason()).isEqualTo(reason);
    assertThat(ready.getMessage()).isEqualTo(message);
    boolean progressing = phase == Phase.Creating || phase == Phase.Scaling || phase == Phase.Updating;
    assertThat(Conditions.isTrue(status.conditions, Conditions.PROGRESSING)).isEqualTo(progressing);
    assertThat(Conditions.isTrue(status.conditions, Conditions.DEGRADED)).isEqualTo(phase == Phase.Degraded);
    assertThat(status.conditions).allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(1L));
  }

  @Test
  void newMembersJoinAndEstablishedOnesStayUpWhenTheirPodIsNotReady() {
    var status = compute(5, previous(Phase.Ready, 3), Optional.of(sts(2, 1, 3, 3, 3, "r1", "r1")), pods(4, 2));
    assertThat(status.members).extracting(m -> m.state).containsExactly(MemberState.Up, MemberState.Up,
        MemberState.Up, MemberState.Joining, MemberState.Joining);
    assertThat(status.members).extracting(m -> m.ready).containsExactly(true, true, false, false, false);
    assertThat(status.readyReplicas).isEqualTo(2);
    assertThat(status.members.get(4).url).isEqualTo("http://kv-4.kv-headless.prod.svc.cluster.local:8080");
    assertThat(status.selector).isEqualTo("app.kubernetes.io/name=dht,app.kubernetes.io/instance=kv,"
        + "app.kubernetes.io/component=node");
  }

  @Test
  void equalObservationsGiveAnEqualStatusSoNothingIsWritten() {
    var first = compute(3, previous(Phase.Creating, 0), Optional.of(sts(1, 1, 3, 3, 3, "r1", "r1")), pods(3, 3));
    DhtCluster cluster = Clusters.cluster(s -> s.replicas = 3);
    cluster.setStatus(first);
    var desired = DesiredState.of(cluster, ClusterModel.from(cluster, Clusters.PLATFORM), 1);
    var second = StatusCalculator.compute(cluster, desired, Optional.of(sts(1, 1, 3, 3, 3, "r1", "r1")), pods(3, 3),
        NOW.plusSeconds(3600));
    assertThat(second).isEqualTo(first);
  }

  @Test
  void aConditionKeepsItsTransitionTimeUntilItsStatusFlips() {
    var ready = compute(3, previous(Phase.Creating, 0), Optional.of(sts(1, 1, 3, 3, 3, "r1", "r1")), pods(3, 3));
    DhtCluster cluster = Clusters.cluster(s -> s.replicas = 3);
    cluster.setStatus(ready);
    var desired = DesiredState.of(cluster, ClusterModel.from(cluster, Clusters.PLATFORM), 1);
    var later = NOW.plusSeconds(60);
    var degraded = StatusCalculator.compute(cluster, desired, Optional.of(sts(1, 1, 3, 2, 3, "r1", "r1")),
        pods(3, 2), later);
    assertThat(Conditions.find(degraded.conditions, Conditions.READY).orElseThrow().getLastTransitionTime())
        .isEqualTo(later.toString());
    assertThat(Conditions.find(degraded.conditions, Conditions.PROGRESSING).orElseThrow().getLastTransitionTime())
        .as("Progressing stayed False").isEqualTo(NOW.toString());
  }

  @Test
  void aFailureKeepsWhatWasObservedAndSaysWhy() {
    DhtCluster cluster = Clusters.cluster(s -> s.replicas = 3);
    cluster.setStatus(compute(3, previous(Phase.Creating, 0), Optional.of(sts(1, 1, 3, 3, 3, "r1", "r1")),
        pods(3, 3)));
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
