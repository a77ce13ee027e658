package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.RackSpec;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The desired objects of a cluster with racks: every case starts from three racks in three zones, 7 members. */
class RackStatefulSetsTest {
    static RackSpec rack(String name, String zone) {
        var rack = new RackSpec();
        rack.name = name;
        rack.zone = zone;
        return rack;
    }

    static Consumer<DhtClusterSpec> threeZones(Consumer<DhtClusterSpec> change) {
        return s -> {
            s.replicas = 7;
            s.racks = new ArrayList<>(List.of(rack("a", "zone-a"), rack("b", "zone-b"), rack("c", "zone-c")));
            change.accept(s);
        };
    }

    static DesiredState desired(Consumer<DhtClusterSpec> change) {
        return Clusters.desired(threeZones(change));
    }

    static List<List<String>> pins(StatefulSet sts) {
        return sts
                .getSpec()
                .getTemplate()
                .getSpec()
                .getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms()
                .stream()
                .map(t -> t.getMatchExpressions().stream()
                        .map(RackStatefulSetsTest::text)
                        .toList())
                .toList();
    }

    static String text(NodeSelectorRequirement r) {
        return r.getKey() + " " + r.getOperator() + " " + r.getValues();
    }

    static StatefulSet rackB(DesiredState d) {
        return d.statefulSets().get(1);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(
                        "one StatefulSet per rack, spec.replicas split evenly, the first racks take the remainder",
                        (Consumer<DhtClusterSpec>) s -> {},
                        (Consumer<DesiredState>) d -> {
                            assertThat(d.statefulSets())
                                    .extracting(sts -> sts.getMetadata().getName())
                                    .containsExactly("kv-a", "kv-b", "kv-c");
                            assertThat(d.statefulSets())
                                    .extracting(sts -> sts.getSpec().getReplicas())
                                    .containsExactly(3, 2, 2);
                            assertThat(d.statefulSets())
                                    .allSatisfy(sts -> assertThat(sts.getSpec().getServiceName())
                                            .isEqualTo("kv-headless"));
                        }),
                Arguments.of(
                        "each rack pinned to its zone by required node affinity",
                        (Consumer<DhtClusterSpec>) s -> {},
                        (Consumer<DesiredState>) d -> {
                            assertThat(pins(d.statefulSets().get(0)))
                                    .containsExactly(List.of("topology.kubernetes.io/zone In [zone-a]"));
                            assertThat(pins(rackB(d)))
                                    .containsExactly(List.of("topology.kubernetes.io/zone In [zone-b]"));
                        }),
                Arguments.of(
                        "the rack label on the pods and in the selector; DHT_RACK from the pod's own label",
                        (Consumer<DhtClusterSpec>) s -> {},
                        (Consumer<DesiredState>) d -> {
                            var sts = rackB(d);
                            assertThat(sts.getSpec().getSelector().getMatchLabels())
                                    .containsEntry(Labels.RACK, "b")
                                    .containsAllEntriesOf(Labels.selector("kv"));
                            assertThat(sts.getSpec().getTemplate().getMetadata().getLabels())
                                    .containsEntry(Labels.RACK, "b");
                            assertThat(sts.getSpec()
                                            .getVolumeClaimTemplates()
                                            .get(0)
                                            .getMetadata()
                                            .getLabels())
                                    .containsEntry(Labels.RACK, "b");
                            var env = sts.getSpec()
                                    .getTemplate()
                                    .getSpec()
                                    .getContainers()
                                    .get(0)
                                    .getEnv();
                            assertThat(env)
                                    .filteredOn(e -> e.getName().equals("DHT_RACK"))
                                    .singleElement()
                                    .satisfies(e -> assertThat(e.getValueFrom()
                                                    .getFieldRef()
                                                    .getFieldPath())
                                            .isEqualTo("metadata.labels['dht.dev/rack']"));
                        }),
                Arguments.of(
                        "one member per Kubernetes node across racks, no zone spread (racks pin zones)",
                        (Consumer<DhtClusterSpec>) s -> {},
                        (Consumer<DesiredState>) d -> {
                            var pod = rackB(d).getSpec().getTemplate().getSpec();
                            assertThat(pod.getAffinity()
                                            .getPodAntiAffinity()
                                            .getRequiredDuringSchedulingIgnoredDuringExecution())
                                    .singleElement()
                                    .satisfies(t -> {
                                        assertThat(t.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
                                        assertThat(t.getLabelSelector().getMatchLabels())
                                                .as("the whole cluster, every rack")
                                                .isEqualTo(Labels.selector("kv"));
                                    });
                            assertThat(pod.getTopologySpreadConstraints()).isEmpty();
                        }),
                Arguments.of(
                        "allowMultiplePerNode: preferred anti-affinity, still pinned",
                        (Consumer<DhtClusterSpec>) s -> s.allowMultiplePerNode = true,
                        (Consumer<DesiredState>) d -> {
                            var anti = rackB(d).getSpec()
                                    .getTemplate()
                                    .getSpec()
                                    .getAffinity()
                                    .getPodAntiAffinity();
                            assertThat(anti.getRequiredDuringSchedulingIgnoredDuringExecution())
                                    .isEmpty();
                            assertThat(anti.getPreferredDuringSchedulingIgnoredDuringExecution())
                                    .hasSize(1);
                            assertThat(pins(rackB(d)))
                                    .containsExactly(List.of("topology.kubernetes.io/zone In [zone-b]"));
                        }),
                Arguments.of(
                        "nodeAffinityLabels instead of a zone: one In requirement per label, keys sorted",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.racks.get(1).zone = null;
                            s.racks.get(1).nodeAffinityLabels = Map.of("site", "east", "row", "7");
                        },
                        (Consumer<DesiredState>) d ->
                                assertThat(pins(rackB(d))).containsExactly(List.of("row In [7]", "site In [east]"))),
                Arguments.of(
                        "the zone is ANDed into each of the user's required node terms",
                        (Consumer<DhtClusterSpec>) s -> s.affinity = new AffinityBuilder()
                                .withNewNodeAffinity()
                                .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                                .addNewNodeSelectorTerm()
                                .addNewMatchExpression()
                                .withKey("disk")
                                .withOperator("In")
                                .withValues("ssd")
                                .endMatchExpression()
                                .endNodeSelectorTerm()
                                .addNewNodeSelectorTerm()
                                .addNewMatchExpression()
                                .withKey("disk")
                                .withOperator("In")
                                .withValues("nvme")
                                .endMatchExpression()
                                .endNodeSelectorTerm()
                                .endRequiredDuringSchedulingIgnoredDuringExecution()
                                .endNodeAffinity()
                                .build(),
                        (Consumer<DesiredState>) d -> assertThat(pins(rackB(d)))
                                .containsExactly(
                                        List.of("disk In [ssd]", "topology.kubernetes.io/zone In [zone-b]"),
                                        List.of("disk In [nvme]", "topology.kubernetes.io/zone In [zone-b]"))),
                Arguments.of(
                        "a rack's affinity part replaces the cluster's; tolerations add up",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.affinity = new AffinityBuilder()
                                    .withNewPodAffinity()
                                    .addNewPreferredDuringSchedulingIgnoredDuringExecution()
                                    .withWeight(1)
                                    .withNewPodAffinityTerm()
                                    .withTopologyKey("cluster-wide")
                                    .endPodAffinityTerm()
                                    .endPreferredDuringSchedulingIgnoredDuringExecution()
                                    .endPodAffinity()
                                    .build();
                            s.racks.get(1).affinity = new AffinityBuilder()
                                    .withNewPodAffinity()
                                    .addNewPreferredDuringSchedulingIgnoredDuringExecution()
                                    .withWeight(2)
                                    .withNewPodAffinityTerm()
                                    .withTopologyKey("rack-b")
                                    .endPodAffinityTerm()
                                    .endPreferredDuringSchedulingIgnoredDuringExecution()
                                    .endPodAffinity()
                                    .build();
                            s.tolerations = List.of(new TolerationBuilder()
                                    .withKey("dedicated")
                                    .withOperator("Exists")
                                    .build());
                            s.racks.get(1).tolerations = List.of(new TolerationBuilder()
                                    .withKey("zone-b-only")
                                    .withOperator("Exists")
                                    .build());
                        },
                        (Consumer<DesiredState>) d -> {
                            var b = rackB(d).getSpec().getTemplate().getSpec();
                            var a = d.statefulSets()
                                    .get(0)
                                    .getSpec()
                                    .getTemplate()
                                    .getSpec();
                            assertThat(b.getAffinity()
                                            .getPodAffinity()
                                            .getPreferredDuringSchedulingIgnoredDuringExecution()
                                            .get(0)
                                            .getPodAffinityTerm()
                                            .getTopologyKey())
                                    .isEqualTo("rack-b");
                            assertThat(a.getAffinity()
                                            .getPodAffinity()
                                            .getPreferredDuringSchedulingIgnoredDuringExecution()
                                            .get(0)
                                            .getPodAffinityTerm()
                                            .getTopologyKey())
                                    .isEqualTo("cluster-wide");
                            assertThat(b.getTolerations())
                                    .extracting(t -> t.getKey())
                                    .containsExactly("dedicated", "zone-b-only");
                            assertThat(a.getTolerations())
                                    .extracting(t -> t.getKey())
                                    .containsExactly("dedicated");
                        }),
                Arguments.of(
                        "a drained rack runs no pod; the others hold every member",
                        (Consumer<DhtClusterSpec>) s -> s.racks.get(2).drain = true,
                        (Consumer<DesiredState>) d -> assertThat(d.statefulSets())
                                .extracting(sts -> sts.getSpec().getReplicas())
                                .containsExactly(4, 3, 0)),
                Arguments.of(
                        "the topology names each member's rack",
                        (Consumer<DhtClusterSpec>) s -> s.replicas = 4,
                        (Consumer<DesiredState>) d -> assertThat(Topology.members(d.topology()))
                                .containsExactly(
                                        "a=http://kv-a-0.kv-headless.prod.svc.cluster.local:8080",
                                        "a=http://kv-a-1.kv-headless.prod.svc.cluster.local:8080",
                                        "b=http://kv-b-0.kv-headless.prod.svc.cluster.local:8080",
                                        "c=http://kv-c-0.kv-headless.prod.svc.cluster.local:8080")),
                Arguments.of(
                        "Services and the PDB cover every rack (one member down at a time in the whole cluster)",
                        (Consumer<DhtClusterSpec>) s -> {},
                        (Consumer<DesiredState>) d -> {
                            assertThat(d.clientService().getSpec().getSelector())
                                    .isEqualTo(Labels.selector("kv"));
                            assertThat(d.headlessService().getSpec().getSelector())
                                    .isEqualTo(Labels.selector("kv"));
                            assertThat(d.podDisruptionBudget()
                                            .getSpec()
                                            .getSelector()
                                            .getMatchLabels())
                                    .isEqualTo(Labels.selector("kv"));
                            assertThat(d.podDisruptionBudget()
                                            .getSpec()
                                            .getMaxUnavailable()
                                            .getIntVal())
                                    .isEqualTo(1);
                        }),
                Arguments.of(
                        "every rack's StatefulSet rolls its pods when its turn comes: partition 0",
                        (Consumer<DhtClusterSpec>) s -> {},
                        (Consumer<DesiredState>) d -> assertThat(d.statefulSets())
                                .allSatisfy(sts -> assertThat(sts.getSpec()
                                                .getUpdateStrategy()
                                                .getRollingUpdate()
                                                .getPartition())
                                        .isZero())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void racks(String name, Consumer<DhtClusterSpec> change, Consumer<DesiredState> check) {
        check.accept(desired(change));
    }

    @Test
    void aRackHeldFromARollKeepsEveryPodOnItsOldTemplate() {
        var cluster = Clusters.cluster(threeZones(s -> {}));
        var model = ClusterModel.from(cluster, Clusters.PLATFORM);
        var layout = model.initialLayout();
        var held = DesiredState.of(cluster, model, new ClusterShape(layout, layout, 1, Map.of("b", 2, "c", 2)));
        assertThat(held.statefulSets())
                .extracting(
                        s -> s.getSpec().getUpdateStrategy().getRollingUpdate().getPartition())
                .containsExactly(0, 2, 2);
        var free = DesiredState.of(cluster, model, new ClusterShape(layout, layout, 1));
        assertThat(held.templateHashes())
                .as("the template is the same; only the partition holds it back")
                .isEqualTo(free.templateHashes());
        assertThat(held.templateHashes()).containsOnlyKeys("a", "b", "c");
    }

    @Test
    void aConfigChangeChangesEveryRacksTemplateHash() {
        var before = desired(s -> {}).templateHashes();
        var after = desired(s -> s.jvm = DesiredStateTest.heapOf("2Gi")).templateHashes();
        assertThat(after.keySet()).isEqualTo(before.keySet());
        before.forEach((rack, hash) -> assertThat(after.get(rack)).isNotEqualTo(hash));
        assertThat(desired(s -> {}).templateHashes()).as("deterministic").isEqualTo(before);
    }
}
