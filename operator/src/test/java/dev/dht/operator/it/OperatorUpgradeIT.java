package dev.dht.operator.it;

import static dev.dht.operator.testing.FakeCluster.PLATFORM;
import static dev.dht.operator.testing.FakeCluster.waiting;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.DhtOperator;
import dev.dht.operator.OperatorSettings;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.ProfilerSpec;
import dev.dht.operator.model.Labels;
import dev.dht.operator.testing.FakeCluster;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Upgrading the operator restarts no member (issue 50): a cluster made by the operator of one release keeps its pod
 * template, its pods and their images when the operator of the next release takes over with other default images
 * (what `helm upgrade` of the chart does: its appVersion names the images); the members move only when the cluster
 * asks for the new version (spec.version). The real kube-apiserver, the fake StatefulSet controller and fake
 * members (FakeCluster); the second operator is the whole operator process's core ({@link DhtOperator}), as the
 * chart runs it.
 */
@ExtendWith(RequiresKubeApiServer.class)
class OperatorUpgradeIT {
    static final String NAME = "up";
    static final String NEW_IMAGE = "registry.example:5000/dht-node:0.2.0";
    static final String NEW_RUNNER = "registry.example:5000/dht-loadrunner:0.2.0";

    @RegisterExtension
    final FakeCluster fake = FakeCluster.named(NAME, 3).build();

    @Test
    void anOperatorUpgradeLeavesThePodsAloneUntilTheClusterAsksForTheNewVersion() {
        fake.create(fake.cluster(3, s -> {
            s.profiler = new ProfilerSpec(); // a second image from the operator: the profiler sidecar's
            s.profiler.enabled = true;
        }));
        waiting().untilAsserted(() -> {
            assertThat(phase()).isEqualTo(Phase.Ready);
            assertThat(images())
                    .as("images by pod")
                    .hasSize(3)
                    .allSatisfy((pod, images) ->
                            assertThat(images).containsExactly(PLATFORM.defaultNodeImage(), PLATFORM.runnerImage()));
        });
        var before = fake.statefulSet();
        Map<String, String> uids = uids();
        fake.operator().getOperator().stop();

        // The next release's operator: other default images, members reached at the fake members.
        var settings = new OperatorSettings(
                Set.of(fake.ns()),
                NEW_IMAGE,
                PLATFORM.clusterDomain(),
                0,
                Optional.empty(),
                NEW_RUNNER,
                fake.members().urlsByPod(),
                Optional.empty());
        KubeApiServer.installCrd(fake.client); // the whole operator also watches DhtBenchmarks
        try (var upgraded = DhtOperator.create(fake.client, settings, new SimpleMeterRegistry(), false)) {
            upgraded.start();
            waiting().alias("first reconcile").until(() -> upgraded.writes().reconciles() >= 1);
            fake.client.pods().inNamespace(fake.ns()).withName(NAME + "-0").edit(p -> {
                p.getMetadata().getLabels().put("touched", "yes"); // another event, another full reconcile
                return p;
            });
            waiting().alias("second reconcile").until(() -> upgraded.writes().reconciles() >= 2);

            var after = fake.statefulSet();
            assertThat(Serialization.asJson(after.getSpec().getTemplate()))
                    .as("the pod template after the operator upgrade")
                    .isEqualTo(Serialization.asJson(before.getSpec().getTemplate()));
            assertThat(after.getMetadata().getGeneration())
                    .isEqualTo(before.getMetadata().getGeneration());
            assertThat(uids()).as("no member restarted").isEqualTo(uids);
            assertThat(fake.statefulSets().podsReplacedByRollingUpdate()).isZero();

            // The cluster asks for the new release: now its members roll, to the new operator's images.
            fake.edit(s -> s.version = "0.2.0");
            waiting().alias("rolled to 0.2.0").untilAsserted(() -> {
                assertThat(images())
                        .as("images by pod")
                        .hasSize(3)
                        .allSatisfy((pod, images) -> assertThat(images).containsExactly(NEW_IMAGE, NEW_RUNNER));
                assertThat(phase()).isEqualTo(Phase.Ready);
            });
            assertThat(fake.statefulSets().podsReplacedByRollingUpdate()).isEqualTo(3);
        }
    }

    Phase phase() {
        var status = fake.current().getStatus();
        return status == null ? null : status.phase;
    }

    List<Pod> pods() {
        return fake.client
                .pods()
                .inNamespace(fake.ns())
                .withLabels(Labels.selector(NAME))
                .list()
                .getItems();
    }

    Map<String, List<String>> images() {
        var out = new TreeMap<String, List<String>>();
        pods().forEach(p -> out.put(
                p.getMetadata().getName(),
                p.getSpec().getContainers().stream().map(Container::getImage).toList()));
        return out;
    }

    Map<String, String> uids() {
        var out = new TreeMap<String, String>();
        pods().forEach(p -> out.put(p.getMetadata().getName(), p.getMetadata().getUid()));
        return out;
    }
}
