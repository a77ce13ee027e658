package dev.dht.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.RackSpec;
import dev.dht.operator.api.v1alpha1.ReplicationSpec;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Clusters;
import dev.dht.operator.model.DesiredState;
import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Placement;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Racks in the status: members per rack, the RACKS column, the FailureDomains condition. */
class RackStatusesTest {
    static final Instant NOW = Instant.parse("2030-01-02T03:04:05Z");

    static Consumer<DhtClusterSpec> racks(int replicas, String... names) {
        return s -> {
            s.replicas = replicas;
            s.racks = new ArrayList<>();
            for (String name : names) {
                var rack = new RackSpec();
                rack.name = name;
                s.racks.add(rack);
            }
        };
    }

    static ClusterModel model(Consumer<DhtClusterSpec> change) {
        return ClusterModel.from(Clusters.cluster(change), Clusters.PLATFORM);
    }

    static Stream<Arguments> failureDomains() {
        return Stream.of(
                Arguments.of(
                        "three even racks", racks(6, "a", "b", "c"), List.of(2, 2, 2), "True", RackStatuses.BALANCED),
                Arguments.of(
                        "uneven by one is balanced",
                        racks(7, "a", "b", "c"),
                        List.of(3, 2, 2),
                        "True",
                        RackStatuses.BALANCED),
                Arguments.of(
                        "uneven by two", racks(7, "a", "b", "c"), List.of(3, 3, 1), "False", RackStatuses.UNBALANCED),
                Arguments.of(
                        "fewer racks than copies",
                        racks(4, "a", "b"),
                        List.of(2, 2),
                        "False",
                        RackStatuses.FEWER_RACKS),
                Arguments.of(
                        "two copies on two racks",
                        racks(4, "a", "b").andThen(s -> {
                            s.replication = new ReplicationSpec();
                            s.replication.factor = 2;
                        }),
                        List.of(2, 2),
                        "True",
                        RackStatuses.BALANCED),
                Arguments.of(
                        "an appended rack not filled yet",
                        racks(6, "a", "b", "c", "d"),
                        List.of(2, 2, 2, 0),
                        "False",
                        RackStatuses.RACK_EMPTY),
                Arguments.of(
                        "a drained, emptied rack is no empty rack",
                        racks(6, "a", "b", "c", "d").andThen(s -> s.racks.get(3).drain = true),
                        List.of(2, 2, 2, 0),
                        "True",
                        RackStatuses.BALANCED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failureDomains")
    void failureDomainsCondition(
            String name, Consumer<DhtClusterSpec> spec, List<Integer> members, String status, String reason) {
        var model = model(spec);
        var condition = RackStatuses.failureDomains(List.of(), model, new Layout(model.rackNames(), members), 1L, NOW);
        assertThat(condition.getType()).isEqualTo(Conditions.FAILURE_DOMAINS);
        assertThat(condition.getStatus()).isEqualTo(status);
        assertThat(condition.getReason()).isEqualTo(reason);
        assertThat(condition.getMessage()).isNotBlank();
    }

    @Test
    void withoutRacksTheReasonSaysWhetherMembersMayShareANode() {
        var model = model(s -> {});
        var layout = Layout.single(3);
        assertThat(RackStatuses.failureDomains(List.of(), model, layout, 1L, NOW)
                        .getReason())
                .isEqualTo("OneMemberPerNode");
        assertThat(RackStatuses.failureDomains(List.of(), model.withPlacement(Placement.SHARED), layout, 1L, NOW)
                        .getReason())
                .isEqualTo("MultiplePerNodeAllowed");
        var kept = RackStatuses.failureDomains(List.of(), model.withPlacement(Placement.KEPT), layout, 1L, NOW);
        assertThat(kept.getReason()).isEqualTo("PlacementKept");
        assertThat(kept.getMessage()).contains("spec.allowMultiplePerNode");
    }

    @Test
    void theStatusCountsReadyMembersPerRackForTheRacksColumn() {
        var cluster = Clusters.cluster(racks(7, "a", "b", "c"));
        var desired = DesiredState.of(cluster, ClusterModel.from(cluster, Clusters.PLATFORM), 1);
        var pods = Stream.of("kv-a-0", "kv-a-1", "kv-a-2", "kv-b-0", "kv-b-1", "kv-c-0", "kv-c-1")
                .map(n -> new PodBuilder()
                        .withNewMetadata()
                        .withName(n)
                        .endMetadata()
                        .withNewStatus()
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus(n.equals("kv-c-1") ? "False" : "True")
                        .endCondition()
                        .endStatus()
                        .build())
                .toList();
        var sets = desired.statefulSets().stream()
                .map(s -> new StatefulSetBuilder(s)
                        .editMetadata()
                        .withGeneration(1L)
                        .endMetadata()
                        .withNewStatus()
                        .withObservedGeneration(1L)
                        .withReplicas(s.getSpec().getReplicas())
                        .withReadyReplicas(s.getSpec().getReplicas())
                        .withUpdatedReplicas(s.getSpec().getReplicas())
                        .endStatus()
                        .build())
                .toList();
        var status = StatusCalculator.compute(cluster, desired, sets, pods, NOW);
        assertThat(status.racksReady).isEqualTo("a 3/3, b 2/2, c 1/2");
        assertThat(status.racks)
                .extracting(
                        r -> r.name + " " + r.members + " " + r.replicas + " " + r.readyMembers + " " + r.targetMembers)
                .containsExactly("a 3 3 3 3", "b 2 2 2 2", "c 2 2 1 2");
        assertThat(status.members)
                .extracting(m -> m.name + "@" + m.rack)
                .containsExactly("kv-a-0@a", "kv-a-1@a", "kv-a-2@a", "kv-b-0@b", "kv-b-1@b", "kv-c-0@c", "kv-c-1@c");
        assertThat(status.readyReplicas).isEqualTo(6);
        assertThat(status.phase).isEqualTo(Phase.Creating);
        assertThat(Conditions.find(status.conditions, Conditions.FAILURE_DOMAINS)
                        .orElseThrow()
                        .getStatus())
                .isEqualTo("True");
    }

    @Test
    void withoutRacksTheStatusHasNoRacks() {
        var cluster = Clusters.cluster(s -> {});
        var desired = DesiredState.of(cluster, ClusterModel.from(cluster, Clusters.PLATFORM), 1);
        var status = StatusCalculator.compute(cluster, desired, List.of(), List.of(), NOW);
        assertThat(status.racks).isNull();
        assertThat(status.racksReady).isNull();
        assertThat(status.members).allSatisfy(m -> assertThat(m.rack).isNull());
    }
}
