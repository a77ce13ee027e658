package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.ImagePullPolicy;
import dev.dht.operator.api.v1alpha1.JvmSpec;
import dev.dht.operator.api.v1alpha1.ReplicationSpec;
import dev.dht.operator.api.v1alpha1.ServiceSpec;
import dev.dht.operator.api.v1alpha1.ServiceType;
import dev.dht.operator.api.v1alpha1.StorageSpec;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The desired objects, built from specs without a cluster. Table cases start from one base cluster. */
class DesiredStateTest {
    @Test
    void theStatefulSetRunsTheNodeAsTheContractSays() {
        var sts = Clusters.desired(s -> {}).statefulSet();
        var spec = sts.getSpec();
        assertThat(spec.getReplicas()).isEqualTo(3);
        assertThat(spec.getServiceName()).isEqualTo("kv-headless");
        assertThat(spec.getPodManagementPolicy()).isEqualTo("Parallel");
        assertThat(spec.getUpdateStrategy().getType()).isEqualTo("RollingUpdate");
        assertThat(spec.getUpdateStrategy().getRollingUpdate())
                .as("default: one pod at a time")
                .isNull();
        assertThat(spec.getSelector().getMatchLabels()).isEqualTo(Labels.selector("kv"));
        assertThat(spec.getTemplate().getMetadata().getLabels()).containsAllEntriesOf(Labels.selector("kv"));

        var pod = spec.getTemplate().getSpec();
        var node = pod.getContainers().get(0);
        assertThat(node.getCommand()).containsExactly("java", "-jar", "/opt/dht/dht-node.jar");
        assertThat(node.getArgs())
                .containsExactly(
                        "--port", "8080", "--data-dir", "/var/lib/dht", "--cluster-file", "/etc/dht/topology/members");
        assertThat(node.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("DHT_SELF");
            assertThat(e.getValue()).isEqualTo("http://$(POD_NAME).kv-headless.prod.svc.cluster.local:8080");
        });
        assertThat(node.getEnv().get(0).getName())
                .as("POD_NAME precedes DHT_SELF, which refers to it")
                .isEqualTo("POD_NAME");
        assertThat(node.getEnvFrom().get(0).getConfigMapRef().getName()).isEqualTo("kv-config");
        assertThat(node.getPorts().get(0).getContainerPort()).isEqualTo(8080);
        for (var probe : List.of(node.getReadinessProbe(), node.getLivenessProbe(), node.getStartupProbe())) {
            assertThat(probe.getHttpGet().getPath()).isEqualTo("/v0/status");
        }
        assertThat(node.getLifecycle().getPreStop().getSleep().getSeconds()).isEqualTo(5L);
        assertThat(pod.getTerminationGracePeriodSeconds())
                .as("the preStop pause, the node's drain and its shutdown grace fit in the grace period, with room")
                .isGreaterThanOrEqualTo(NodeStatefulSet.PRE_STOP_SECONDS
                        + NodeStatefulSet.DRAIN_SECONDS
                        + NodeStatefulSet.NODE_SHUTDOWN_GRACE_SECONDS
                        + 10);
        var liveness = node.getLivenessProbe();
        assertThat((long) liveness.getPeriodSeconds() * liveness.getFailureThreshold())
                .as("a draining member answers 503 on /v0/status: liveness must not restart it meanwhile")
                .isGreaterThan(NodeStatefulSet.DRAIN_SECONDS + NodeStatefulSet.NODE_SHUTDOWN_GRACE_SECONDS);
        assertThat(node.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(node.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(node.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(node.getVolumeMounts())
                .extracting(m -> m.getMountPath())
                .containsExactly(
                        "/var/lib/dht",
                        "/etc/dht/topology",
                        "/tmp",
                        "/etc/dht/member-tls",
                        "/etc/dht/client-tls",
                        "/etc/dht/auth");
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(10001L);
        assertThat(pod.getSecurityContext().getFsGroup()).isEqualTo(10001L);
        assertThat(pod.getEnableServiceLinks())
                .as("no DHT_PORT=tcp://... from a Service named dht")
                .isFalse();
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getServiceAccountName()).isEqualTo("kv-node");
        assertThat(pod.getVolumes()).anySatisfy(v -> {
            assertThat(v.getConfigMap().getName()).isEqualTo("kv-topology");
            assertThat(v.getConfigMap().getItems().get(0).getKey()).isEqualTo("members");
        });
        var claim = spec.getVolumeClaimTemplates().get(0);
        assertThat(claim.getMetadata().getName()).isEqualTo("data");
        assertThat(claim.getSpec().getResources().getRequests().get("storage").toString())
                .isEqualTo("10Gi");
        assertThat(claim.getSpec().getStorageClassName()).isNull();
    }

    static Stream<Arguments> statefulSetCases() {
        return Stream.of(
                Arguments.of(
                        "volumes kept on delete, dropped on scale-down by default",
                        (Consumer<DhtClusterSpec>) s -> {},
                        (Consumer<StatefulSet>) sts -> {
                            assertThat(sts.getSpec()
                                            .getPersistentVolumeClaimRetentionPolicy()
                                            .getWhenDeleted())
                                    .isEqualTo("Retain");
                            assertThat(sts.getSpec()
                                            .getPersistentVolumeClaimRetentionPolicy()
                                            .getWhenScaled())
                                    .isEqualTo("Delete");
                        }),
                Arguments.of(
                        "retainOnScaleDown keeps a removed member's volume",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.storage = new StorageSpec();
                            s.storage.retainOnScaleDown = true;
                        },
                        (Consumer<StatefulSet>) sts -> assertThat(sts.getSpec()
                                        .getPersistentVolumeClaimRetentionPolicy()
                                        .getWhenScaled())
                                .isEqualTo("Retain")),
                Arguments.of(
                        "retainOnDelete false deletes volumes with the cluster",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.storage = new StorageSpec();
                            s.storage.retainOnDelete = false;
                        },
                        (Consumer<StatefulSet>) sts -> assertThat(sts.getSpec()
                                        .getPersistentVolumeClaimRetentionPolicy()
                                        .getWhenDeleted())
                                .isEqualTo("Delete")),
                Arguments.of(
                        "storage size and class",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.storage = new StorageSpec();
                            s.storage.size = "100Gi";
                            s.storage.storageClassName = "fast-ssd";
                        },
                        (Consumer<StatefulSet>) sts -> {
                            var claim = sts.getSpec()
                                    .getVolumeClaimTemplates()
                                    .get(0)
                                    .getSpec();
                            assertThat(claim.getStorageClassName()).isEqualTo("fast-ssd");
                            assertThat(claim.getResources()
                                            .getRequests()
                                            .get("storage")
                                            .toString())
                                    .isEqualTo("100Gi");
                        }),
                Arguments.of(
                        "image and pull policy",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.image = "registry.example/dht-node:1.2.3";
                            s.imagePullPolicy = ImagePullPolicy.Always;
                        },
                        (Consumer<StatefulSet>) sts -> {
                            var node = sts.getSpec()
                                    .getTemplate()
                                    .getSpec()
                                    .getContainers()
                                    .get(0);
                            assertThat(node.getImage()).isEqualTo("registry.example/dht-node:1.2.3");
                            assertThat(node.getImagePullPolicy()).isEqualTo("Always");
                        }),
                Arguments.of(
                        "default placement: one member per Kubernetes node, spread over zones",
                        (Consumer<DhtClusterSpec>) s -> {},
                        (Consumer<StatefulSet>) sts -> {
                            var pod = sts.getSpec().getTemplate().getSpec();
                            assertThat(pod.getAffinity()
                                            .getPodAntiAffinity()
                                            .getRequiredDuringSchedulingIgnoredDuringExecution())
                                    .singleElement()
                                    .satisfies(t -> {
                                        assertThat(t.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
                                        assertThat(t.getLabelSelector().getMatchLabels())
                                                .isEqualTo(Labels.selector("kv"));
                                    });
                            assertThat(pod.getAffinity()
                                            .getPodAntiAffinity()
                                            .getPreferredDuringSchedulingIgnoredDuringExecution())
                                    .isEmpty();
                            assertThat(pod.getAffinity().getNodeAffinity())
                                    .as("no racks: not pinned")
                                    .isNull();
                            assertThat(pod.getTopologySpreadConstraints())
                                    .singleElement()
                                    .satisfies(c -> {
                                        assertThat(c.getTopologyKey()).isEqualTo("topology.kubernetes.io/zone");
                                        assertThat(c.getMaxSkew()).isEqualTo(1);
                                        assertThat(c.getWhenUnsatisfiable())
                                                .as("nodes without a zone label still take members")
                                                .isEqualTo("ScheduleAnyway");
                                        assertThat(c.getLabelSelector().getMatchLabels())
                                                .isEqualTo(Labels.selector("kv"));
                                    });
                            assertThat(sts.getMetadata().getAnnotations())
                                    .containsEntry(Labels.PLACEMENT, Placement.MARK);
                        }),
                Arguments.of(
                        "allowMultiplePerNode: members only prefer distinct nodes, no spread",
                        (Consumer<DhtClusterSpec>) s -> s.allowMultiplePerNode = true,
                        (Consumer<StatefulSet>) sts -> {
                            var pod = sts.getSpec().getTemplate().getSpec();
                            assertThat(pod.getAffinity()
                                            .getPodAntiAffinity()
                                            .getRequiredDuringSchedulingIgnoredDuringExecution())
                                    .isEmpty();
                            assertThat(pod.getAffinity()
                                            .getPodAntiAffinity()
                                            .getPreferredDuringSchedulingIgnoredDuringExecution())
                                    .singleElement()
                                    .satisfies(t -> assertThat(
                                                    t.getPodAffinityTerm().getTopologyKey())
                                            .isEqualTo("kubernetes.io/hostname"));
                            assertThat(pod.getTopologySpreadConstraints()).isEmpty();
                        }),
                Arguments.of(
                        "an affinity replaces the default part by part; selector and tolerations pass through",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.affinity = new AffinityBuilder()
                                    .withNewNodeAffinity()
                                    .endNodeAffinity()
                                    .build();
                            s.nodeSelector = Map.of("disk", "ssd");
                            s.tolerations = List.of(new TolerationBuilder()
                                    .withKey("dedicated")
                                    .withOperator("Exists")
                                    .build());
                        },
                        (Consumer<StatefulSet>) sts -> {
                            var pod = sts.getSpec().getTemplate().getSpec();
                            assertThat(pod.getAffinity()
                                            .getPodAntiAffinity()
                                            .getRequiredDuringSchedulingIgnoredDuringExecution())
                                    .as("the default anti-affinity stays: the spec sets only node affinity")
                                    .hasSize(1);
                            assertThat(pod.getAffinity().getNodeAffinity()).isNotNull();
                            assertThat(pod.getNodeSelector()).containsEntry("disk", "ssd");
                            assertThat(pod.getTolerations())
                                    .extracting(t -> t.getKey())
                                    .containsExactly("dedicated");
                        }),
                Arguments.of(
                        "an own pod anti-affinity replaces the default one",
                        (Consumer<DhtClusterSpec>) s -> s.affinity = new AffinityBuilder()
                                .withNewPodAntiAffinity()
                                .addNewPreferredDuringSchedulingIgnoredDuringExecution()
                                .withWeight(7)
                                .withNewPodAffinityTerm()
                                .withTopologyKey("rack")
                                .endPodAffinityTerm()
                                .endPreferredDuringSchedulingIgnoredDuringExecution()
                                .endPodAntiAffinity()
                                .build(),
                        (Consumer<StatefulSet>) sts -> {
                            var anti = sts.getSpec()
                                    .getTemplate()
                                    .getSpec()
                                    .getAffinity()
                                    .getPodAntiAffinity();
                            assertThat(anti.getRequiredDuringSchedulingIgnoredDuringExecution())
                                    .isEmpty();
                            assertThat(anti.getPreferredDuringSchedulingIgnoredDuringExecution())
                                    .singleElement()
                                    .satisfies(t -> assertThat(t.getWeight()).isEqualTo(7));
                        }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statefulSetCases")
    void statefulSet(String name, Consumer<DhtClusterSpec> change, Consumer<StatefulSet> check) {
        check.accept(Clusters.desired(change).statefulSet());
    }

    @Test
    void servicesAndBudget() {
        var desired = Clusters.desired(s -> {
            s.service = new ServiceSpec();
            s.service.type = ServiceType.NodePort;
            s.service.port = 9000;
        });
        var headless = desired.headlessService().getSpec();
        assertThat(headless.getClusterIP()).isEqualTo("None");
        assertThat(headless.getPublishNotReadyAddresses()).isTrue();
        assertThat(headless.getSelector()).isEqualTo(Labels.selector("kv"));
        var client = desired.clientService().getSpec();
        assertThat(client.getType()).isEqualTo("NodePort");
        assertThat(client.getPorts().get(0).getPort()).isEqualTo(9000);
        assertThat(client.getPorts().get(0).getTargetPort().getStrVal()).isEqualTo("http");
        assertThat(client.getPorts().get(0).getNodePort())
                .as("left to the API server")
                .isNull();
        var pdb = desired.podDisruptionBudget().getSpec();
        assertThat(pdb.getMaxUnavailable().getIntVal()).isEqualTo(1);
        assertThat(pdb.getSelector().getMatchLabels()).isEqualTo(Labels.selector("kv"));
        assertThat(desired.serviceAccount().getAutomountServiceAccountToken()).isFalse();
    }

    @Test
    void everyObjectIsOwnedByTheClusterLabelledAndStamped() {
        for (HasMetadata object : Clusters.desired(s -> {}).inApplyOrder()) {
            assertThat(object.getMetadata().getNamespace()).isEqualTo("prod");
            assertThat(object.getMetadata().getOwnerReferences())
                    .singleElement()
                    .satisfies(ref -> {
                        assertThat(ref.getKind()).isEqualTo("DhtCluster");
                        assertThat(ref.getApiVersion()).isEqualTo("dht.dev/v1alpha1");
                        assertThat(ref.getUid()).isEqualTo("0f1e2d3c-uid");
                        assertThat(ref.getController()).isTrue();
                    });
            assertThat(object.getMetadata().getLabels())
                    .containsEntry(Labels.MANAGED_BY, Labels.OPERATOR)
                    .containsEntry(Labels.INSTANCE, "kv");
            assertThat(Hashing.stampOf(object)).hasSize(20);
        }
        assertThat(Clusters.desired(s -> {}).inApplyOrder().getLast())
                .as("pods come last")
                .isInstanceOf(StatefulSet.class);
    }

    @Test
    void buildingTwiceGivesEqualObjectsAndStamps() {
        var first = Clusters.desired(s -> s.replicas = 4).inApplyOrder();
        var second = Clusters.desired(s -> s.replicas = 4).inApplyOrder();
        assertThat(second).isEqualTo(first);
        assertThat(second.stream().map(Hashing::stampOf))
                .isEqualTo(first.stream().map(Hashing::stampOf).toList());
    }

    @Test
    void scalingWithTheDefaultFactorNeverChangesTheNodeConfig() {
        var hashes = java.util.stream.IntStream.rangeClosed(1, 7)
                .mapToObj(n -> Clusters.desired(s -> s.replicas = n).configHash())
                .distinct()
                .toList();
        assertThat(hashes)
                .as("1..7 members, default factor: one config, so no rolling restart")
                .hasSize(1);
        assertThat(Clusters.desired(s -> s.replicas = 2).config().getData())
                .containsEntry("DHT_REPLICATION_FACTOR", "3");
    }

    @Test
    void aScaleStepShapesTheStatefulSetAndTheTopologyApart() {
        var cluster = Clusters.cluster(s -> s.replicas = 3);
        var model = ClusterModel.from(cluster, Clusters.PLATFORM);
        var desired = DesiredState.of(cluster, model, new ClusterShape(Layout.single(5), Layout.single(4), 7));
        assertThat(desired.statefulSet().getSpec().getReplicas()).isEqualTo(5);
        assertThat(Topology.members(desired.topology()))
                .containsExactly(
                        "http://kv-0.kv-headless.prod.svc.cluster.local:8080",
                                "http://kv-1.kv-headless.prod.svc.cluster.local:8080",
                        "http://kv-2.kv-headless.prod.svc.cluster.local:8080",
                                "http://kv-3.kv-headless.prod.svc.cluster.local:8080");
        assertThat(Topology.currentVersion(desired.topology())).contains(7L);
        assertThat(desired.topologyVersion()).isEqualTo(7L);
        assertThat(desired.configHash())
                .isEqualTo(DesiredState.of(cluster, model, 7).configHash());
    }

    @Test
    void aConfigChangeChangesThePodTemplateHashAndATopologyChangeDoesNot() {
        Consumer<DhtClusterSpec> pinned = s -> {
            s.replication = new ReplicationSpec();
            s.replication.factor = 3;
        };
        String base = Clusters.desired(pinned).configHash();
        String scaled = Clusters.desired(pinned.andThen(s -> s.replicas = 7)).configHash();
        String heap = Clusters.desired(pinned.andThen(s -> {
                    s.jvm = new JvmSpec();
                    s.jvm.heap = "2Gi";
                }))
                .configHash();
        assertThat(scaled)
                .as("scaling with a pinned factor: topology only, no restart")
                .isEqualTo(base);
        assertThat(heap).isNotEqualTo(base);
        assertThat(Clusters.desired(pinned.andThen(s -> s.jvm = heapOf("2Gi")))
                        .statefulSet()
                        .getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getAnnotations())
                .containsEntry(Labels.CONFIG_HASH, heap);
        assertThat(Hashing.stampOf(Clusters.desired(pinned).statefulSet()))
                .isNotEqualTo(Hashing.stampOf(
                        Clusters.desired(pinned.andThen(s -> s.replicas = 7)).statefulSet()));
    }

    static JvmSpec heapOf(String heap) {
        var jvm = new JvmSpec();
        jvm.heap = heap;
        return jvm;
    }
}
