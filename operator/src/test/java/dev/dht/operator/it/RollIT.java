package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.UpgradeSpec;
import dev.dht.operator.model.Platform;
import dev.dht.operator.reconciler.WriteMetrics;
import dev.dht.operator.rollout.MemberRoll;
import dev.dht.operator.status.Conditions;
import dev.dht.operator.testing.FakeMembers;
import dev.dht.operator.testing.FakeStatefulSetController;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.OperatorUnderTest;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.junit.LocallyRunOperatorExtension;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A new version rolls one member at a time, each only once the cluster is settled (issue 50): the operator against a
 * real kube-apiserver + etcd, the fake StatefulSet controller (it replaces pods from the partition up, highest
 * ordinal first, as the real one) and fake members answering /v0/admin/movement and /metrics. Each test changes
 * spec.version of a Ready cluster with one gate closed, sees no member rolled over several reconciles and the
 * Rolled condition naming the member and why, opens the gate and sees the roll finish in order.
 */
@ExtendWith(RequiresKubeApiServer.class)
class RollIT {
  static final Platform PLATFORM = new Platform("dht-node:0.1.0", "cluster.local");
  static final String NAME = "r";
  static final Duration BOUND = Duration.ofSeconds(90);
  final KubernetesClient client = KubeApiServer.client();
  final WriteMetrics metrics = WriteMetrics.inMemory();
  volatile FakeMembers members;

  @RegisterExtension
  final LocallyRunOperatorExtension operator = OperatorUnderTest.builder(client)
      .withReconciler(OperatorUnderTest.clusterReconciler(PLATFORM, metrics,
          (namespace, pod, url) -> members.adminUrl(namespace, pod, url)))
      .build();

  FakeStatefulSetController statefulSets;
  String ns;

  @BeforeEach
  void startFakes() {
    ns = operator.getNamespace();
    statefulSets = new FakeStatefulSetController(client, ns).start();
    members = new FakeMembers(client, ns, NAME, PLATFORM.clusterDomain(), 3);
  }

  @AfterEach
  void stopFakes() {
    members.close();
    statefulSets.close();
  }

  @Test
  void noMemberRollsWhileAnotherHoldsHintsNotYetDelivered() {
    readyCluster(s -> {});
    members.hintsPending("r-0", 5);
    setVersion("0.2.0");
    awaitRolled(c -> {
      assertThat(c.getReason()).isEqualTo("WaitingForCluster");
      assertThat(c.getMessage()).contains("next: r-2").contains("r-0 holds 5 hints not yet delivered");
    });
    int polled = members.metricsPolls("r-0");
    await().atMost(BOUND).until(() -> members.metricsPolls("r-0") >= polled + 3); // asked again, still held
    assertThat(statefulSets.replacedPods()).as("no member rolled while r-0 holds hints").isEmpty();

    members.hintsPending("r-0", 0);
    awaitRolledToTheNewVersion();
  }

  @Test
  void noMemberRollsWhileDataMoves() {
    readyCluster(s -> {});
    members.busy("r-1", true);
    setVersion("0.2.0");
    awaitRolled(c -> {
      assertThat(c.getReason()).isEqualTo("WaitingForCluster");
      assertThat(c.getMessage()).contains("r-1 data movement moving");
    });
    int polled = members.metricsPolls("r-1");
    await().atMost(BOUND).until(() -> members.metricsPolls("r-1") >= polled + 3);
    assertThat(statefulSets.replacedPods()).as("no member rolled while r-1 moves data").isEmpty();

    members.busy("r-1", false);
    awaitRolledToTheNewVersion();
  }

  @Test
  void aMemberThatDoesNotComeBackStopsTheRollWhichGoesOnWhenItIsBack() {
    readyCluster(s -> {});
    statefulSets.kubeletReportsReady(false); // the new pods do not get ready
    setVersion("0.2.0");
    awaitRolled(c -> {
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("MemberNotBack");
      assertThat(c.getMessage()).contains("r-2 is not back: not ready");
    });
    double reconciles = metrics.reconciles();
    await().atMost(BOUND).until(() -> metrics.reconciles() >= reconciles + 5);
    assertThat(statefulSets.replacedPods()).as("stopped after the member that is not back").containsExactly("r-2");

    statefulSets.kubeletReportsReady(true);
    awaitRolledToTheNewVersion();
  }

  @Test
  void theCanaryRollsThatManyMembersAndWaitsUntilItIsRemoved() {
    readyCluster(s -> {
      s.upgrade = new UpgradeSpec();
      s.upgrade.canary = 1;
    });
    setVersion("0.2.0");
    awaitRolled(c -> {
      assertThat(c.getReason()).isEqualTo("Canary");
      assertThat(c.getMessage()).contains("1/3 members run the new template").contains("spec.upgrade.canary");
    });
    double reconciles = metrics.reconciles();
    await().atMost(BOUND).until(() -> metrics.reconciles() >= reconciles + 5);
    assertThat(statefulSets.replacedPods()).as("the canary only").containsExactly("r-2");
    assertThat(image("r-2")).isEqualTo("dht-node:0.2.0");
    assertThat(image("r-1")).isEqualTo("dht-node:0.1.0");

    client.resources(DhtCluster.class).inNamespace(ns).withName(NAME).edit(c -> {
      c.getSpec().upgrade.canary = null;
      return c;
    });
    awaitRolledToTheNewVersion();
  }

  void readyCluster(Consumer<DhtClusterSpec> change) {
    var cluster = new DhtCluster();
    cluster.getMetadata().setName(NAME);
    cluster.getMetadata().setNamespace(ns);
    cluster.setSpec(new DhtClusterSpec());
    cluster.getSpec().replicas = 3;
    change.accept(cluster.getSpec());
    operator.create(cluster);
    awaitStatus(s -> assertThat(s.phase).isEqualTo(Phase.Ready));
    awaitRolled(c -> assertThat(c.getReason()).isEqualTo("Done"));
  }

  void setVersion(String version) {
    client.resources(DhtCluster.class).inNamespace(ns).withName(NAME).edit(c -> {
      c.getSpec().version = version;
      return c;
    });
  }

  void awaitRolledToTheNewVersion() {
    awaitStatus(s -> {
      assertThat(s.phase).isEqualTo(Phase.Ready);
      var rolled = Conditions.find(s.conditions, MemberRoll.CONDITION).orElseThrow();
      assertThat(rolled.getStatus()).isEqualTo("True");
      assertThat(rolled.getReason()).isEqualTo("Done");
      assertThat(List.of(image("r-0"), image("r-1"), image("r-2"))).containsOnly("dht-node:0.2.0");
    });
    assertThat(statefulSets.replacedPods()).as("one member at a time, highest ordinal first")
        .containsExactly("r-2", "r-1", "r-0");
  }

  String image(String pod) {
    var p = client.pods().inNamespace(ns).withName(pod).get();
    return p == null ? null : p.getSpec().getContainers().getFirst().getImage();
  }

  void awaitRolled(Consumer<Condition> check) {
    awaitStatus(s -> check.accept(Conditions.find(s.conditions, MemberRoll.CONDITION)
        .orElseThrow(() -> new AssertionError("no Rolled condition"))));
  }

  void awaitStatus(Consumer<DhtClusterStatus> check) {
    await().atMost(BOUND).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
      var cluster = client.resources(DhtCluster.class).inNamespace(ns).withName(NAME).get();
      assertThat(cluster.getStatus()).as("status").isNotNull();
      check.accept(cluster.getStatus());
    });
  }
}
