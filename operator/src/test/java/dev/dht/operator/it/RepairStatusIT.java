package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.RepairSpec;
import dev.dht.operator.model.Platform;
import dev.dht.operator.model.Topology;
import dev.dht.operator.reconciler.WriteMetrics;
import dev.dht.operator.replacement.MemberReplacement;
import dev.dht.operator.status.Conditions;
import dev.dht.operator.testing.FakeMembers;
import dev.dht.operator.testing.FakeStatefulSetController;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.OperatorUnderTest;
import dev.dht.operator.testing.Processes;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.junit.LocallyRunOperatorExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Repair and rebuilds as the operator shows and acts on them: the operator against a real kube-apiserver + etcd,
 * the fake StatefulSet controller, and fake members answering the nodes' {@code GET /v0/admin/repair} (scripted:
 * their last rounds, and a rebuild in progress). Each test gets its own namespace, cluster "r" and operator.
 */
@ExtendWith(RequiresKubeApiServer.class)
class RepairStatusIT {
  static final Platform PLATFORM = new Platform("dht-node:it", "cluster.local");
  static final Duration FUNCTIONAL_BOUND = Duration.ofSeconds(90);
  static final String NAME = "r";
  final WriteMetrics writes = WriteMetrics.inMemory();
  final KubernetesClient client = KubeApiServer.client();
  volatile FakeMembers members;

  @RegisterExtension
  final LocallyRunOperatorExtension operator = OperatorUnderTest.builder(client)
      .withReconciler(OperatorUnderTest.clusterReconciler(PLATFORM, writes,
          (namespace, pod, url) -> members.adminUrl(namespace, pod, url)))
      .build();

  FakeStatefulSetController statefulSets;
  String ns;

  @BeforeEach
  void startFakes() {
    ns = operator.getNamespace();
    statefulSets = new FakeStatefulSetController(client, ns).start();
    members = new FakeMembers(client, ns, NAME, PLATFORM.clusterDomain(), 5);
  }

  @AfterEach
  void stopFakes() {
    members.close();
    statefulSets.close();
  }

  @Test
  void statusRepairSumsTheMembersReportsAndRepairOverdueTurnsTrueWhenARangeWasNotRepairedForTwoIntervals() {
    long now = System.currentTimeMillis();
    for (int i = 0; i < 3; i++) {
      members.repaired(i, now - 60_000 * (i + 1), now - 3_600_000 * (i + 1), i, 1000L * i);
    }
    operator.create(cluster(3, s -> {
      s.repair = new RepairSpec();
      s.repair.interval = "2h";
    }));
    awaitStatus(s -> {
      assertThat(s.phase).isEqualTo(Phase.Ready);
      assertThat(s.repair).isNotNull();
      assertThat(s.repair.enabled).isTrue();
      assertThat(s.repair.membersReporting).isEqualTo(3);
      assertThat(s.repair.lastCompleteRound).isEqualTo(time(now - 60_000));
      assertThat(s.repair.oldestRangeRepair).as("the oldest of all members").isEqualTo(time(now - 3 * 3_600_000));
      assertThat(s.repair.rangesOutOfSync).isEqualTo(3);
      assertThat(s.repair.bytesRepaired).isEqualTo(3000);
      assertThat(condition(s, Conditions.REPAIR_OVERDUE).getStatus()).isEqualTo("False");
    });
    assertThat(config("DHT_REPAIR_INTERVAL")).isEqualTo("7200s");

    // One member's ranges were last repaired 5 h ago: more than two intervals (4 h).
    members.repaired(2, now - 60_000, now - 5 * 3_600_000, 0, 0);
    awaitStatus(s -> {
      Condition overdue = condition(s, Conditions.REPAIR_OVERDUE);
      assertThat(overdue.getStatus()).isEqualTo("True");
      assertThat(overdue.getReason()).isEqualTo("RepairOverdue");
      assertThat(overdue.getMessage()).contains(time(now - 5 * 3_600_000)).contains("tombstones");
      assertThat(s.phase).as("overdue repair is a condition, not a phase").isEqualTo(Phase.Ready);
    });
    members.repaired(2, System.currentTimeMillis(), System.currentTimeMillis(), 0, 0);
    awaitStatus(s -> assertThat(condition(s, Conditions.REPAIR_OVERDUE).getStatus()).isEqualTo("False"));
  }

  @Test
  void aRebuildingMemberShowsItsProgressKeepsTheClusterDegradedAndAScaleWaitsForIt() {
    operator.create(cluster(3, s -> {}));
    awaitPhase(Phase.Ready);

    members.rebuilding(1, 412, 3072);
    awaitStatus(s -> {
      assertThat(s.phase).as("a ready pod is no proof that its data is back").isEqualTo(Phase.Degraded);
      assertThat(s.members.get(1).state).isEqualTo(MemberState.Rebuilding);
      assertThat(s.members.get(1).ready).isTrue();
      assertThat(s.members.get(1).rebuild).isEqualTo("412/3072 ranges, 412 MiB received");
      assertThat(condition(s, Conditions.READY).getStatus()).isEqualTo("False");
      assertThat(condition(s, Conditions.DEGRADED).getReason()).isEqualTo("MemberRebuilding");
      assertThat(condition(s, Conditions.DEGRADED).getMessage()).contains("r-1").contains("412/3072");
    });

    scale(5);
    awaitStatus(s -> {
      Condition refused = condition(s, Conditions.REFUSED);
      assertThat(refused.getStatus()).isEqualTo("True");
      assertThat(refused.getReason()).isEqualTo("MemberRebuilding");
      assertThat(refused.getMessage()).contains("spec.replicas 5").contains("r-1");
      assertThat(s.phase).isEqualTo(Phase.Degraded);
    });
    // The operator decides on every poll: let it see the rebuild a few times more.
    int polls = members.repairPolls(1);
    await().atMost(FUNCTIONAL_BOUND).until(() -> members.repairPolls(1) >= polls + 4);
    assertThat(statefulSet().getSpec().getReplicas()).as("the StatefulSet waits").isEqualTo(3);
    assertThat(topologyMembers()).as("and so does the topology").isEqualTo(3);

    members.rebuilt(1);
    awaitStatus(s -> {
      assertThat(s.phase).isEqualTo(Phase.Ready);
      assertThat(s.members).hasSize(5).extracting(m -> m.state).containsOnly(MemberState.Up);
      assertThat(condition(s, Conditions.REFUSED).getStatus()).isEqualTo("False");
    });
    assertThat(statefulSet().getSpec().getReplicas()).isEqualTo(5);
    assertThat(topologyMembers()).isEqualTo(5);
  }

  @Test
  void aMemberAnnotatedForReplacementGetsANewVolumeAndPodAndEndsRebuilt() {
    operator.create(cluster(3, s -> {}));
    awaitPhase(Phase.Ready);
    Pod before = pod("r-1");
    PersistentVolumeClaim claimBefore = claim("data-r-1");
    assertThat(claimBefore).isNotNull();
    String otherPod = pod("r-0").getMetadata().getUid();

    Processes.kubectl("annotate", "pod/r-1", MemberReplacement.ANNOTATION + "=true", "-n", ns)
        .orFail("kubectl annotate");
    // The claim goes (kube-api-test runs no pvc-protection controller: the test lets it go, as it would once its
    // pod is deleted), the pod goes, and the StatefulSet makes both anew.
    waiting().untilAsserted(() -> {
      PersistentVolumeClaim c = claim("data-r-1");
      if (c != null && c.getMetadata().getUid().equals(claimBefore.getMetadata().getUid())) {
        assertThat(c.getMetadata().getDeletionTimestamp()).as("the old claim is being deleted").isNotNull();
        client.resource(c).edit(x -> {
          x.getMetadata().setFinalizers(List.of());
          return x;
        });
      }
      Pod now = pod("r-1");
      assertThat(now).isNotNull();
      assertThat(now.getMetadata().getUid()).as("a new pod").isNotEqualTo(before.getMetadata().getUid());
      PersistentVolumeClaim fresh = claim("data-r-1");
      assertThat(fresh).isNotNull();
      assertThat(fresh.getMetadata().getUid()).as("on a new claim").isNotEqualTo(claimBefore.getMetadata().getUid());
      assertThat(fresh.getMetadata().getDeletionTimestamp()).isNull();
    });
    assertThat(pod("r-1").getMetadata().getAnnotations()).doesNotContainKey(MemberReplacement.ANNOTATION);
    assertThat(pod("r-0").getMetadata().getUid()).as("no other member touched").isEqualTo(otherPod);

    // The node on the new volume rebuilds (as a real one does, finding a new data directory among members with data).
    members.rebuilding(1, 0, 3072);
    awaitStatus(s -> {
      assertThat(s.members.get(1).state).isEqualTo(MemberState.Rebuilding);
      assertThat(s.phase).isEqualTo(Phase.Degraded);
    });
    members.rebuilding(1, 3000, 3072);
    awaitStatus(s -> assertThat(s.members.get(1).rebuild).startsWith("3000/3072 ranges"));
    members.rebuilt(1);
    awaitStatus(s -> {
      assertThat(s.phase).isEqualTo(Phase.Ready);
      assertThat(s.members.get(1).state).isEqualTo(MemberState.Up);
      assertThat(s.members.get(1).rebuild).isNull();
    });
  }

  // ---------------------------------------------------------------------------------------------

  static String time(long millis) {
    return Instant.ofEpochMilli(millis).truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
  }

  DhtCluster cluster(int replicas, Consumer<DhtClusterSpec> change) {
    var cluster = new DhtCluster();
    cluster.getMetadata().setName(NAME);
    cluster.getMetadata().setNamespace(ns);
    cluster.setSpec(new DhtClusterSpec());
    cluster.getSpec().replicas = replicas;
    cluster.getSpec().tls = FakeMembers.plaintextClientPort();
    change.accept(cluster.getSpec());
    return cluster;
  }

  static Condition condition(DhtClusterStatus s, String type) {
    return Conditions.find(s.conditions, type).orElseThrow(() -> new AssertionError("no condition " + type));
  }

  void scale(int replicas) {
    Processes.kubectl("scale", "dht/" + NAME, "--replicas=" + replicas, "-n", ns).orFail("kubectl scale");
  }

  StatefulSet statefulSet() {
    return client.apps().statefulSets().inNamespace(ns).withName(NAME).get();
  }

  Pod pod(String name) {
    return client.pods().inNamespace(ns).withName(name).get();
  }

  PersistentVolumeClaim claim(String name) {
    return client.persistentVolumeClaims().inNamespace(ns).withName(name).get();
  }

  String config(String key) {
    return client.configMaps().inNamespace(ns).withName(NAME + "-config").get().getData().get(key);
  }

  int topologyMembers() {
    return Topology.members(client.configMaps().inNamespace(ns).withName(NAME + "-topology").get()).size();
  }

  void awaitPhase(Phase phase) {
    awaitStatus(s -> assertThat(s.phase).isEqualTo(phase));
  }

  void awaitStatus(Consumer<DhtClusterStatus> check) {
    waiting().untilAsserted(() -> {
      var cluster = client.resources(DhtCluster.class).inNamespace(ns).withName(NAME).get();
      assertThat(cluster.getStatus()).as("status").isNotNull();
      check.accept(cluster.getStatus());
    });
  }

  static ConditionFactory waiting() {
    return await().atMost(FUNCTIONAL_BOUND).pollInterval(Duration.ofMillis(100));
  }
}
