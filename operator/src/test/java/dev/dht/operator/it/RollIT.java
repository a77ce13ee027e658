package dev.dht.operator.it;

import static dev.dht.operator.testing.FakeCluster.PLATFORM;
import static dev.dht.operator.testing.FakeCluster.waiting;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.UpgradeSpec;
import dev.dht.operator.rollout.MemberRoll;
import dev.dht.operator.testing.FakeCluster;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A new version rolls one member at a time, each only once the cluster is settled (issue 50): the operator against a
 * real kube-apiserver + etcd, the fake StatefulSet controller (it replaces pods from the partition up, highest
 * ordinal first, as the real one) and fake members answering /v0/admin/movement and /metrics (FakeCluster). Each
 * test changes spec.version of a Ready cluster with one gate closed, sees no member rolled over several reconciles
 * and the Rolled condition naming the member and why, opens the gate and sees the roll finish in order.
 */
@ExtendWith(RequiresKubeApiServer.class)
class RollIT {
    static final String NEW_IMAGE = "dht-node:0.2.0";

    @RegisterExtension
    final FakeCluster fake = FakeCluster.named("r", 3).build();

    @Test
    void noMemberRollsWhileAnotherHoldsHintsNotYetDelivered() {
        readyCluster(s -> {});
        fake.members().hintsPending("r-0", 5);
        setVersion("0.2.0");
        awaitRolled(c -> {
            assertThat(c.getReason()).isEqualTo("WaitingForCluster");
            assertThat(c.getMessage()).contains("next: r-2").contains("r-0 holds 5 hints not yet delivered");
        });
        int polled = fake.members().metricsPolls("r-0");
        waiting().until(() -> fake.members().metricsPolls("r-0") >= polled + 3); // asked again, still held
        assertThat(fake.statefulSets().replacedPods())
                .as("no member rolled while r-0 holds hints")
                .isEmpty();

        fake.members().hintsPending("r-0", 0);
        awaitRolledToTheNewVersion();
    }

    @Test
    void noMemberRollsWhileDataMoves() {
        readyCluster(s -> {});
        fake.members().busy("r-1", true);
        setVersion("0.2.0");
        awaitRolled(c -> {
            assertThat(c.getReason()).isEqualTo("WaitingForCluster");
            assertThat(c.getMessage()).contains("r-1 data movement moving");
        });
        int polled = fake.members().metricsPolls("r-1");
        waiting().until(() -> fake.members().metricsPolls("r-1") >= polled + 3);
        assertThat(fake.statefulSets().replacedPods())
                .as("no member rolled while r-1 moves data")
                .isEmpty();

        fake.members().busy("r-1", false);
        awaitRolledToTheNewVersion();
    }

    @Test
    void aMemberThatDoesNotComeBackStopsTheRollWhichGoesOnWhenItIsBack() {
        readyCluster(s -> {});
        fake.statefulSets().kubeletReportsReady(false); // the new pods do not get ready
        setVersion("0.2.0");
        awaitRolled(c -> {
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo("MemberNotBack");
            assertThat(c.getMessage()).contains("r-2 is not back: not ready");
        });
        double reconciles = fake.writes.reconciles();
        waiting().until(() -> fake.writes.reconciles() >= reconciles + 5);
        assertThat(fake.statefulSets().replacedPods())
                .as("stopped after the member that is not back")
                .containsExactly("r-2");

        fake.statefulSets().kubeletReportsReady(true);
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
            assertThat(c.getMessage())
                    .contains("1/3 members run the new template")
                    .contains("spec.upgrade.canary");
        });
        double reconciles = fake.writes.reconciles();
        waiting().until(() -> fake.writes.reconciles() >= reconciles + 5);
        assertThat(fake.statefulSets().replacedPods()).as("the canary only").containsExactly("r-2");
        assertThat(image("r-2")).isEqualTo(NEW_IMAGE);
        assertThat(image("r-1")).isEqualTo(PLATFORM.defaultNodeImage());

        fake.edit(s -> s.upgrade.canary = null);
        awaitRolledToTheNewVersion();
    }

    void readyCluster(Consumer<DhtClusterSpec> change) {
        fake.create(fake.cluster(3, change));
        fake.awaitPhase(Phase.Ready);
        awaitRolled(c -> assertThat(c.getReason()).isEqualTo("Done"));
    }

    void setVersion(String version) {
        fake.edit(s -> s.version = version);
    }

    void awaitRolledToTheNewVersion() {
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            var rolled = FakeCluster.condition(s, MemberRoll.CONDITION);
            assertThat(rolled.getStatus()).isEqualTo("True");
            assertThat(rolled.getReason()).isEqualTo("Done");
            assertThat(List.of(image("r-0"), image("r-1"), image("r-2"))).containsOnly(NEW_IMAGE);
        });
        assertThat(fake.statefulSets().replacedPods())
                .as("one member at a time, highest ordinal first")
                .containsExactly("r-2", "r-1", "r-0");
    }

    String image(String pod) {
        var p = fake.client.pods().inNamespace(fake.ns()).withName(pod).get();
        return p == null ? null : p.getSpec().getContainers().getFirst().getImage();
    }

    void awaitRolled(Consumer<Condition> check) {
        fake.awaitStatus(s -> check.accept(FakeCluster.condition(s, MemberRoll.CONDITION)));
    }
}
