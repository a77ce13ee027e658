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
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cluster feature level as the operator shows and raises it: the operator against a real kube-apiserver + etcd,
 * the fake StatefulSet controller, and fake members answering the nodes' {@code /v0/admin/feature-level} (a member
 * of 0.1.0 answers 404, as that release). Each raise a member receives records every member's release at that
 * moment, so a raise sent to a mixed set of releases fails the test.
 */
@ExtendWith(RequiresKubeApiServer.class)
class FeatureLevelIT {
  static final Platform PLATFORM = new Platform("dht-node:it", "cluster.local");
  static final String NAME = "u";
  final KubernetesClient client = KubeApiServer.client();
  volatile FakeMembers members;

  @RegisterExtension
  final LocallyRunOperatorExtension operator = OperatorUnderTest.builder(client)
      .withReconciler(OperatorUnderTest.clusterReconciler(PLATFORM, WriteMetrics.inMemory(),
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
  void theLevelIsRaisedOnlyOnceEveryMemberRunsTheNewRelease() {
    members.runs("u-0", "0.1.0");
    members.runs("u-1", "0.1.0");
    members.runs("u-2", "0.1.0");
    operator.create(cluster(s -> {}));
    awaitStatus(s -> {
      assertThat(s.phase).isEqualTo(Phase.Ready);
      assertThat(s.release).isEqualTo("0.1.0");
      assertThat(s.featureLevel).isEqualTo(1);
      assertThat(s.members).allSatisfy(m -> assertThat(m.release).isEqualTo("0.1.0"));
    });
    // two members rolled: a mixed cluster, shown as such and never raised
    members.runs("u-0", "0.2.0");
    members.runs("u-1", "0.2.0");
    int polled = members.releasePolls("u-1");
    awaitStatus(s -> {
      assertThat(s.release).as("no one release while mixed").isEmpty();
      assertThat(s.members.get(0).release).isEqualTo("0.2.0");
      assertThat(s.members.get(2).release).isEqualTo("0.1.0");
      assertThat(condition(s).getStatus()).isEqualTo("True"); // 1 is all u-2's release knows
    });
    // several polls of the mixed set (the steady pace is 3.75 s here): still no raise
    waiting().until(() -> members.releasePolls("u-1") >= polled + 2);
    assertThat(members.raises()).as("no raise with a member of 0.1.0").isEmpty();
    assertThat(members.featureLevel("u-0")).isEqualTo(1);

    members.runs("u-2", "0.2.0");
    awaitStatus(s -> {
      assertThat(s.release).isEqualTo("0.2.0");
      assertThat(s.featureLevel).isEqualTo(2);
      assertThat(s.members).allSatisfy(m -> assertThat(m.featureLevel).isEqualTo(2));
      assertThat(condition(s).getStatus()).isEqualTo("True");
      assertThat(condition(s).getReason()).isEqualTo("AtTarget");
    });
    assertThat(members.raises()).extracting(FakeMembers.Raise::pod).containsExactlyInAnyOrder("u-0", "u-1", "u-2");
    assertThat(members.raises()).allSatisfy(r -> {
      assertThat(r.level()).isEqualTo(2);
      assertThat(r.releases()).as("every member ran 0.2.0 when the raise was sent").containsOnlyKeys("u-0", "u-1",
          "u-2").allSatisfy((pod, release) -> assertThat(release).isEqualTo("0.2.0"));
    });
  }

  @Test
  void theHoldKeepsTheLevelUntilSpecFeatureLevelAsksForIt() {
    operator.create(cluster(s -> {
      s.upgrade = new UpgradeSpec();
      s.upgrade.holdFeatureLevel = true;
    }));
    awaitStatus(s -> {
      assertThat(s.phase).isEqualTo(Phase.Ready);
      assertThat(s.release).isEqualTo("0.2.0");
      assertThat(s.featureLevel).isEqualTo(1);
      assertThat(condition(s).getReason()).isEqualTo("Held");
      assertThat(condition(s).getMessage()).contains("holdFeatureLevel").contains("rolled back");
    });
    int polled = members.releasePolls("u-0");
    waiting().until(() -> members.releasePolls("u-0") >= polled + 2);
    assertThat(members.raises()).as("held").isEmpty();

    client.resources(DhtCluster.class).inNamespace(ns).withName(NAME).edit(c -> {
      c.getSpec().featureLevel = 2;
      return c;
    });
    awaitStatus(s -> {
      assertThat(s.featureLevel).isEqualTo(2);
      assertThat(condition(s).getReason()).isEqualTo("AtTarget");
    });
    assertThat(members.raises()).hasSize(3);
  }

  DhtCluster cluster(Consumer<DhtClusterSpec> change) {
    var cluster = new DhtCluster();
    cluster.getMetadata().setName(NAME);
    cluster.getMetadata().setNamespace(ns);
    cluster.setSpec(new DhtClusterSpec());
    cluster.getSpec().replicas = 3;
    cluster.getSpec().tls = FakeMembers.plaintextClientPort(); // the fakes answer HTTP
    change.accept(cluster.getSpec());
    return cluster;
  }

  static Condition condition(DhtClusterStatus s) {
    return Conditions.find(s.conditions, "FeatureLevel").orElseThrow(() -> new AssertionError("no FeatureLevel"));
  }

  void awaitStatus(Consumer<DhtClusterStatus> check) {
    waiting().untilAsserted(() -> {
      var cluster = client.resources(DhtCluster.class).inNamespace(ns).withName(NAME).get();
      assertThat(cluster.getStatus()).as("status").isNotNull();
      check.accept(cluster.getStatus());
    });
  }

  static org.awaitility.core.ConditionFactory waiting() {
    return await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100));
  }
}
