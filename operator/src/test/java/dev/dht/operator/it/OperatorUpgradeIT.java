package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.operator.DhtOperator;
import dev.dht.operator.OperatorSettings;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.ProfilerSpec;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Platform;
import dev.dht.operator.reconciler.WriteMetrics;
import dev.dht.operator.testing.FakeMembers;
import dev.dht.operator.testing.FakeStatefulSetController;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.OperatorUnderTest;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.junit.LocallyRunOperatorExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Upgrading the operator restarts no member (issue 50): a cluster made by the operator of one release keeps its pod
 * template, its pods and their images when the operator of the next release takes over with other default images
 * (what `helm upgrade` of the chart does: its appVersion names the images); the members move only when the cluster
 * asks for the new version (spec.version). The real kube-apiserver, the fake StatefulSet controller and fake
 * members; the second operator is the whole operator process's core ({@link DhtOperator}), as the chart runs it.
 */
@ExtendWith(RequiresKubeApiServer.class)
class OperatorUpgradeIT {
  static final Platform OLD = new Platform("registry.example:5000/dht-node:0.1.0", "cluster.local");
  static final String NEW_IMAGE = "registry.example:5000/dht-node:0.2.0";
  static final String NAME = "up";
  static final Duration BOUND = Duration.ofSeconds(90);
  final KubernetesClient client = KubeApiServer.client();
  volatile FakeMembers members;

  @RegisterExtension
  final LocallyRunOperatorExtension operator = OperatorUnderTest.builder(client)
      .withReconciler(OperatorUnderTest.clusterReconciler(OLD, WriteMetrics.inMemory(),
          (namespace, pod, url) -> members.adminUrl(namespace, pod, url)))
      .build();

  FakeStatefulSetController statefulSets;
  String ns;

  @BeforeEach
  void startFakes() {
    ns = operator.getNamespace();
    statefulSets = new FakeStatefulSetController(client, ns).start();
    members = new FakeMembers(client, ns, NAME, OLD.clusterDomain(), 3);
  }

  @AfterEach
  void stopFakes() {
    members.close();
    statefulSets.close();
  }

  @Test
  void anOperatorUpgradeLeavesThePodsAloneUntilTheClusterAsksForTheNewVersion() {
    var cluster = new DhtCluster();
    cluster.getMetadata().setName(NAME);
    cluster.getMetadata().setNamespace(ns);
    cluster.setSpec(new DhtClusterSpec());
    cluster.getSpec().replicas = 3;
    cluster.getSpec().profiler = new ProfilerSpec(); // a second image from the operator: the profiler sidecar's
    cluster.getSpec().profiler.enabled = true;
    operator.create(cluster);
    await().atMost(BOUND).untilAsserted(() -> {
      assertThat(phase()).isEqualTo(Phase.Ready);
      assertThat(images()).as("images by pod").hasSize(3).allSatisfy((pod, images) -> assertThat(images)
          .containsExactly("registry.example:5000/dht-node:0.1.0", "registry.example:5000/dht-loadrunner:0.1.0"));
    });
    var before = operator.get(StatefulSet.class, NAME);
    Map<String, String> uids = uids();
    operator.getOperator().stop();

    // The next release's operator: other default images, members reached at the fake members.
    var settings = new OperatorSettings(Set.of(ns), NEW_IMAGE, OLD.clusterDomain(), 0, Optional.empty(),
        "registry.example:5000/dht-loadrunner:0.2.0", members.urlsByPod());
    KubeApiServer.installCrd(client); // the whole operator also watches DhtBenchmarks
    try (var upgraded = DhtOperator.create(client, settings, new SimpleMeterRegistry(), false)) {
      upgraded.start();
      await("first reconcile").atMost(BOUND).until(() -> upgraded.writes().reconciles() >= 1);
      client.pods().inNamespace(ns).withName(NAME + "-0").edit(p -> {
        p.getMetadata().getLabels().put("touched", "yes"); // another event, another full reconcile
        return p;
      });
      await("second reconcile").atMost(BOUND).until(() -> upgraded.writes().reconciles() >= 2);

      var after = operator.get(StatefulSet.class, NAME);
      assertThat(Serialization.asJson(after.getSpec().getTemplate())).as("the pod template after the operator upgrade")
          .isEqualTo(Serialization.asJson(before.getSpec().getTemplate()));
      assertThat(after.getMetadata().getGeneration()).isEqualTo(before.getMetadata().getGeneration());
      assertThat(uids()).as("no member restarted").isEqualTo(uids);
      assertThat(statefulSets.podsReplacedByRollingUpdate()).isZero();

      // The cluster asks for the new release: now its members roll, to the new operator's images.
      client.resources(DhtCluster.class).inNamespace(ns).withName(NAME).edit(c -> {
        c.getSpec().version = "0.2.0";
        return c;
      });
      await("rolled to 0.2.0").atMost(BOUND).untilAsserted(() -> {
        assertThat(images()).as("images by pod").hasSize(3).allSatisfy((pod, images) -> assertThat(images)
            .containsExactly(NEW_IMAGE, "registry.example:5000/dht-loadrunner:0.2.0"));
        assertThat(phase()).isEqualTo(Phase.Ready);
      });
      assertThat(statefulSets.podsReplacedByRollingUpdate()).isEqualTo(3);
    }
  }

  Phase phase() {
    var status = operator.get(DhtCluster.class, NAME).getStatus();
    return status == null ? null : status.phase;
  }

  List<Pod> pods() {
    return client.pods().inNamespace(ns).withLabels(Labels.selector(NAME)).list().getItems();
  }

  Map<String, List<String>> images() {
    var out = new TreeMap<String, List<String>>();
    pods().forEach(p -> out.put(p.getMetadata().getName(), p.getSpec().getContainers().stream()
        .map(Container::getImage).toList()));
    return out;
  }

  Map<String, String> uids() {
    var out = new TreeMap<String, String>();
    pods().forEach(p -> out.put(p.getMetadata().getName(), p.getMetadata().getUid()));
    return out;
  }
}
