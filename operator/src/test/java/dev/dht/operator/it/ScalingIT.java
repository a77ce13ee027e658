package dev.dht.operator.it;

import static dev.dht.operator.testing.FakeCluster.PLATFORM;
import static dev.dht.operator.testing.FakeCluster.waiting;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.DhtOperator;
import dev.dht.operator.OperatorSettings;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.ReplicationSpec;
import dev.dht.operator.api.v1alpha1.ScalingStep;
import dev.dht.operator.api.v1alpha1.StorageSpec;
import dev.dht.operator.model.Labels;
import dev.dht.operator.scaling.FactorHold;
import dev.dht.operator.status.Conditions;
import dev.dht.operator.testing.FakeCluster;
import dev.dht.operator.testing.FakeMembers;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.RequiresKubeApiServer;
import dev.dht.operator.testing.ShapeHistory;
import dev.dht.operator.testing.ShapeHistory.Shape;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Scaling with data movement: the operator against a real kube-apiserver + etcd, the fake StatefulSet controller,
 * and fake members answering the nodes' movement endpoint on loopback (scripted: moving for a few polls after
 * each change of their member list, or as long as a test holds them). Each test gets its own namespace, cluster
 * "s" and operator (FakeCluster).
 */
@ExtendWith(RequiresKubeApiServer.class)
class ScalingIT {
    static final String NAME = "s";

    @RegisterExtension
    final FakeCluster fake = FakeCluster.named(NAME, 5).build();

    final KubernetesClient client = fake.client;
    ShapeHistory history;

    @BeforeEach
    void startHistory() {
        history = new ShapeHistory(client, fake.ns(), NAME);
    }

    @AfterEach
    void stopHistory() {
        history.close();
    }

    @Test
    void scaleUpGrowsTheStatefulSetThenListsTheReadyMembersThenWaitsUntilEveryMemberIsIdle() {
        fake.create(fake.cluster(3, s -> {}));
        fake.awaitPhase(Phase.Ready);
        var templateBefore = fake.statefulSet().getSpec().getTemplate();
        String configBefore = fake.config().getData().get("DHT_REPLICATION_FACTOR");

        fake.statefulSets().kubeletReportsReady(false);
        fake.members().hold(0, 1, 2, 3, 4);
        fake.scale(5);
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Scaling);
            assertThat(s.scaling.step).isEqualTo(ScalingStep.StartingMembers);
            assertThat(s.members)
                    .extracting(m -> m.state)
                    .containsExactly(
                            MemberState.Up, MemberState.Up, MemberState.Up, MemberState.Joining, MemberState.Joining);
        });
        assertThat(fake.statefulSet().getSpec().getReplicas())
                .as("the StatefulSet grows first")
                .isEqualTo(5);
        assertThat(fake.topologyMembers())
                .as("new members are listed only once ready")
                .isEqualTo(3);

        fake.statefulSets().kubeletReportsReady(true);
        fake.awaitStatus(s -> {
            assertThat(s.scaling).isNotNull();
            assertThat(s.scaling.step).isEqualTo(ScalingStep.MovingData);
            assertThat(s.scaling.membersPolled).isEqualTo(5);
            assertThat(s.scaling.membersIdle).isZero();
            assertThat(s.scaling.keysLeft).isPositive();
            assertThat(s.scaling.bytesLeft).isPositive();
            assertThat(s.members)
                    .hasSize(5)
                    .allSatisfy(m -> assertThat(m.movement).isEqualTo("moving"));
            assertThat(s.members.get(3).state)
                    .as("not Up until its data has arrived")
                    .isEqualTo(MemberState.Joining);
            assertThat(Conditions.find(s.conditions, Conditions.READY)
                            .orElseThrow()
                            .getMessage())
                    .contains("moving data on a topology of 5 members: 0/5 idle");
            assertThat(s.settledTopologyVersion).isEqualTo(1L);
            assertThat(s.topologyVersion).isEqualTo(2L);
        });
        assertThat(fake.topologyMembers()).isEqualTo(5);
        assertThat(phase()).as("still moving while held").isEqualTo(Phase.Scaling);

        fake.members().release(0, 1, 2, 3, 4);
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.scaling).isNull();
            assertThat(s.settledTopologyVersion).isEqualTo(2L);
            assertThat(s.members).extracting(m -> m.state).containsOnly(MemberState.Up);
            assertThat(s.members).allSatisfy(m -> assertThat(m.movement).isNull());
        });
        assertThat(history.shapes()).containsExactly(new Shape(3, 3), new Shape(3, 5), new Shape(5, 5));
        assertThat(fake.statefulSet().getSpec().getTemplate())
                .as("no restart: the topology is read live")
                .isEqualTo(templateBefore);
        assertThat(fake.config().getData().get("DHT_REPLICATION_FACTOR")).isEqualTo(configBefore);
        assertThat(fake.statefulSets().podsReplacedByRollingUpdate()).isZero();
        awaitEvents("Normal Scaling Ready -> Scaling", "Normal AllMembersReady Scaling -> Ready");
    }

    @ParameterizedTest(name = "retainOnScaleDown={0}")
    @ValueSource(booleans = {false, true})
    void scaleDownRemovesOneMemberAtATimeTopologyFirstAndTheStatefulSetOnlyWhenItIsDone(boolean retain) {
        fake.create(fake.cluster(5, s -> {
            s.storage = new StorageSpec();
            s.storage.retainOnScaleDown = retain;
        }));
        fake.awaitPhase(Phase.Ready);
        assertThat(claims()).hasSize(5);

        fake.members().hold(4);
        fake.scale(3);
        fake.awaitStatus(s -> {
            assertThat(s.scaling).isNotNull();
            assertThat(s.scaling.step).isEqualTo(ScalingStep.MovingData);
            assertThat(s.scaling.leaving).containsExactly("s-4");
            assertThat(s.members.get(4).state).isEqualTo(MemberState.Draining);
            assertThat(s.members.get(4).movement).isEqualTo("moving");
        });
        // The operator decides on every poll: let it see the leaving member moving a few times.
        waiting().until(() -> fake.members().pollsSinceChange(4) >= 4);
        assertThat(fake.topologyMembers()).isEqualTo(4);
        assertThat(fake.statefulSet().getSpec().getReplicas())
                .as("not shrunk while the leaving member moves")
                .isEqualTo(5);
        assertThat(phase()).isEqualTo(Phase.Scaling);

        fake.members().release(4);
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.members).hasSize(3).extracting(m -> m.state).containsOnly(MemberState.Up);
            assertThat(s.replicas).isEqualTo(3);
        });
        assertThat(history.shapes())
                .as("topology first, one member at a time")
                .containsExactly(new Shape(5, 5), new Shape(4, 5), new Shape(4, 4), new Shape(3, 4), new Shape(3, 3));
        assertThat(client.pods()
                        .inNamespace(fake.ns())
                        .withLabels(Labels.selector(NAME))
                        .list()
                        .getItems())
                .hasSize(3);
        waiting().alias("volumes of the removed members").untilAsserted(() -> {
            for (var claim : claims()) {
                boolean removedMember = claim.getMetadata().getName().endsWith("-s-3")
                        || claim.getMetadata().getName().endsWith("-s-4");
                // Deleted claims stay terminating here: the pvc-protection controller does not run under kube-api-test.
                boolean deleted = claim.getMetadata().getDeletionTimestamp() != null;
                assertThat(deleted).as(claim.getMetadata().getName()).isEqualTo(removedMember && !retain);
            }
            assertThat(claims()).hasSize(5);
        });
    }

    @Test
    void anOperatorRestartedInTheMiddleOfAScaleDownResumesWhereTheClusterIs() {
        fake.create(fake.cluster(5, s -> {}));
        fake.awaitPhase(Phase.Ready);
        fake.members().hold(4);
        fake.scale(3);
        waiting().until(() -> fake.members().pollsSinceChange(4) >= 2);
        fake.operator().getOperator().stop();
        assertThat(fake.topologyMembers()).isEqualTo(4);
        assertThat(fake.statefulSet().getSpec().getReplicas()).isEqualTo(5);
        int pollsBefore = fake.members().totalPolls(4);

        var settings = new OperatorSettings(
                Set.of(fake.ns()),
                PLATFORM.defaultNodeImage(),
                PLATFORM.clusterDomain(),
                0,
                Optional.empty(),
                fake.members().urlsByPod());
        KubeApiServer.installCrd(client); // the whole operator also watches DhtBenchmarks
        try (var restarted = DhtOperator.create(client, settings, new SimpleMeterRegistry(), false)) {
            restarted.start();
            waiting()
                    .alias("the restarted operator polls the leaving member")
                    .until(() -> fake.members().totalPolls(4) > pollsBefore + 1);
            assertThat(fake.topologyMembers())
                    .as("it waits for the same member")
                    .isEqualTo(4);
            assertThat(fake.statefulSet().getSpec().getReplicas()).isEqualTo(5);

            fake.members().release(4);
            fake.awaitPhase(Phase.Ready);
            assertThat(history.shapes())
                    .as("no step repeated or skipped across the restart")
                    .containsExactly(
                            new Shape(5, 5), new Shape(4, 5), new Shape(4, 4), new Shape(3, 4), new Shape(3, 3));
        }
    }

    @Test
    void aReplicationFactorChangeDuringAScaleIsRefusedWithAnEventAndAppliedWhenTheScaleIsDone() {
        fake.create(fake.cluster(3, s -> {}));
        fake.awaitPhase(Phase.Ready);
        String hashBefore = configHash();
        fake.members().hold(0, 1, 2, 3);
        fake.scale(4);
        fake.awaitStatus(s -> assertThat(s.scaling)
                .isNotNull()
                .satisfies(sc -> assertThat(sc.step).isEqualTo(ScalingStep.MovingData)));

        var edited = fake.operator().get(DhtCluster.class, NAME);
        edited.getSpec().replication = new ReplicationSpec();
        edited.getSpec().replication.factor = 2;
        fake.operator().replace(edited);
        fake.awaitStatus(s -> {
            var refused = Conditions.find(s.conditions, Conditions.REFUSED).orElseThrow();
            assertThat(refused.getStatus()).isEqualTo("True");
            assertThat(refused.getReason()).isEqualTo(FactorHold.REASON);
            assertThat(refused.getMessage())
                    .contains(
                            "replication factor 2 (spec.replication.factor, default 3) is held back while the cluster scales");
            assertThat(s.replicationFactor).isEqualTo(3);
        });
        assertThat(fake.config().getData()).containsEntry("DHT_REPLICATION_FACTOR", "3");
        assertThat(configHash()).as("no pod restarts mid-move").isEqualTo(hashBefore);
        awaitEvents(
                "Warning " + FactorHold.REASON + " replication factor 2 (spec.replication.factor, default 3) is held");

        fake.members().release(0, 1, 2, 3);
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(Conditions.isTrue(s.conditions, Conditions.REFUSED)).isFalse();
            assertThat(s.replicationFactor).isEqualTo(2);
        });
        assertThat(fake.config().getData()).containsEntry("DHT_REPLICATION_FACTOR", "2");
        assertThat(configHash()).isNotEqualTo(hashBefore);
        assertThat(fake.statefulSets().podsReplacedByRollingUpdate())
                .as("applied by a rolling update after the scale")
                .isEqualTo(4);
    }

    @Test
    void crossingThreeMembersWithTheDefaultFactorRestartsNothing() {
        fake.create(fake.cluster(2, s -> {}));
        fake.awaitPhase(Phase.Ready);
        assertThat(fake.config().getData()).containsEntry("DHT_REPLICATION_FACTOR", "3");
        String hashBefore = configHash();
        fake.scale(3);
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.settledTopologyVersion).isEqualTo(2L);
            assertThat(s.replicationFactor).isEqualTo(3);
        });
        assertThat(configHash()).isEqualTo(hashBefore);
        assertThat(fake.statefulSets().podsReplacedByRollingUpdate()).isZero();
    }

    @Test
    void withRacksAScaleUpFillsTheSmallestRacksAndAScaleDownLeavesFromTheLastFullestRackOneMemberAtATime() {
        var racks = List.of("a", "b", "c");
        useRacks(racks);
        fake.create(fake.cluster(4, s -> s.racks = racks(racks)));
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.racksReady).isEqualTo("a 2/2, b 1/1, c 1/1");
        });

        fake.scale(6);
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.racksReady).isEqualTo("a 2/2, b 2/2, c 2/2");
        });
        fake.scale(4);
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.racksReady).isEqualTo("a 2/2, b 1/1, c 1/1");
            assertThat(s.members).extracting(m -> m.name).containsExactly("s-a-0", "s-a-1", "s-b-0", "s-c-0");
        });
        assertThat(history.rackShapes())
                .extracting(Object::toString)
                .containsExactly(
                        "topology a=2,b=1,c=1 / StatefulSets a=2,b=1,c=1",
                        // up: the two smallest racks grow together, listed in one move once their pods are ready
                        "topology a=2,b=1,c=1 / StatefulSets a=2,b=2,c=1",
                        "topology a=2,b=1,c=1 / StatefulSets a=2,b=2,c=2",
                        "topology a=2,b=2,c=2 / StatefulSets a=2,b=2,c=2",
                        // down: the topology first, one member at a time, from the last of the fullest racks
                        "topology a=2,b=2,c=1 / StatefulSets a=2,b=2,c=2",
                        "topology a=2,b=2,c=1 / StatefulSets a=2,b=2,c=1",
                        "topology a=2,b=1,c=1 / StatefulSets a=2,b=2,c=1",
                        "topology a=2,b=1,c=1 / StatefulSets a=2,b=1,c=1");
    }

    @Test
    void aDrainedRackHandsItsMembersToTheOtherRacksOneAtATimeAndCanThenBeRemoved() {
        var racks = List.of("a", "b", "c");
        useRacks(racks);
        fake.create(fake.cluster(3, s -> s.racks = racks(racks)));
        fake.awaitPhase(Phase.Ready);
        fake.members().holdWhileLeaving("s-c-0");

        var edited = fake.operator().get(DhtCluster.class, NAME);
        edited.getSpec().racks.get(2).drain = true;
        fake.operator().replace(edited);
        fake.awaitStatus(s -> {
            assertThat(s.scaling).isNotNull();
            assertThat(s.scaling.leaving).containsExactly("s-c-0");
            assertThat(s.racks)
                    .extracting(r -> r.name + " " + r.members + " " + r.replicas + " " + r.targetMembers)
                    .containsExactly("a 2 2 2", "b 1 1 1", "c 0 1 0");
        });
        waiting().until(() -> fake.members().pollsSinceChange("s-c-0") >= 3);
        assertThat(statefulSet("c").getSpec().getReplicas())
                .as("not removed while it hands over")
                .isEqualTo(1);
        assertThatRemovalIsRefused("a drained rack is removed only once it holds no member and runs no pod");

        fake.members().releaseLeaving("s-c-0");
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.racksReady).isEqualTo("a 2/2, b 1/1, c 0/0");
            var domains =
                    Conditions.find(s.conditions, Conditions.FAILURE_DOMAINS).orElseThrow();
            assertThat(domains.getStatus()).as("two racks for three copies").isEqualTo("False");
            assertThat(domains.getReason()).isEqualTo("FewerRacksThanReplicationFactor");
        });
        assertThat(history.rackShapes())
                .extracting(Object::toString)
                .containsExactly(
                        "topology a=1,b=1,c=1 / StatefulSets a=1,b=1,c=1",
                        "topology a=1,b=1,c=1 / StatefulSets a=2,b=1,c=1",
                        "topology a=2,b=1,c=1 / StatefulSets a=2,b=1,c=1",
                        "topology a=2,b=1,c=0 / StatefulSets a=2,b=1,c=1",
                        "topology a=2,b=1,c=0 / StatefulSets a=2,b=1,c=0");

        var removed = fake.operator().get(DhtCluster.class, NAME);
        removed.getSpec().racks = new ArrayList<>(removed.getSpec().racks.subList(0, 2));
        fake.operator().replace(removed);
        fake.awaitStatus(s -> {
            assertThat(s.observedGeneration).isEqualTo(3L);
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.racksReady).isEqualTo("a 2/2, b 1/1");
        });
        assertThat(statefulSet("c").getSpec().getReplicas())
                .as("left at 0, owned by the cluster")
                .isZero();
    }

    void assertThatRemovalIsRefused(String message) {
        var removed = fake.operator().get(DhtCluster.class, NAME);
        removed.getSpec().racks = new ArrayList<>(removed.getSpec().racks.subList(0, 2));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> fake.operator().replace(removed))
                .hasMessageContaining(message);
    }

    /** This test's cluster has racks: fake members for each, and a shape history per rack. */
    void useRacks(List<String> racks) {
        history.close();
        fake.use(FakeMembers.ofRacks(client, fake.ns(), NAME, PLATFORM.clusterDomain(), racks, 3));
        history = new ShapeHistory(client, fake.ns(), NAME, racks);
    }

    static List<dev.dht.operator.api.v1alpha1.RackSpec> racks(List<String> names) {
        return new ArrayList<>(names.stream()
                .map(n -> {
                    var rack = new dev.dht.operator.api.v1alpha1.RackSpec();
                    rack.name = n;
                    return rack;
                })
                .toList());
    }

    StatefulSet statefulSet(String rack) {
        return client.apps()
                .statefulSets()
                .inNamespace(fake.ns())
                .withName(NAME + "-" + rack)
                .get();
    }

    // ---------------------------------------------------------------------------------------------

    String configHash() {
        return fake.statefulSet()
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get(Labels.CONFIG_HASH);
    }

    Phase phase() {
        return client.resources(DhtCluster.class)
                .inNamespace(fake.ns())
                .withName(NAME)
                .get()
                .getStatus()
                .phase;
    }

    List<PersistentVolumeClaim> claims() {
        return client.persistentVolumeClaims().inNamespace(fake.ns()).list().getItems();
    }

    /** Every expected text starts some Event of the cluster ("type reason message"). */
    void awaitEvents(String... expected) {
        waiting().untilAsserted(() -> {
            var events = new ArrayList<String>();
            client.v1().events().inNamespace(fake.ns()).list().getItems().stream()
                    .filter(e -> "DhtCluster".equals(e.getInvolvedObject().getKind())
                            && NAME.equals(e.getInvolvedObject().getName()))
                    .forEach(e -> events.add(e.getType() + " " + e.getReason() + " " + e.getMessage()));
            for (String text : expected) {
                assertThat(events).as("events").anySatisfy(e -> assertThat(e).startsWith(text));
            }
        });
    }
}
