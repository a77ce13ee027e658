package dev.dht.operator.it;

import static dev.dht.operator.testing.FakeCluster.waiting;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.UpgradeSpec;
import dev.dht.operator.testing.FakeCluster;
import dev.dht.operator.testing.FakeMembers;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.Condition;
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
    @RegisterExtension
    final FakeCluster fake = FakeCluster.named("u", 3).build();

    @Test
    void theLevelIsRaisedOnlyOnceEveryMemberRunsTheNewRelease() {
        fake.members().runs("u-0", "0.1.0");
        fake.members().runs("u-1", "0.1.0");
        fake.members().runs("u-2", "0.1.0");
        fake.create(fake.cluster(3, s -> {}));
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.release).isEqualTo("0.1.0");
            assertThat(s.featureLevel).isEqualTo(1);
            assertThat(s.members).allSatisfy(m -> assertThat(m.release).isEqualTo("0.1.0"));
        });
        // two members rolled: a mixed cluster, shown as such and never raised
        fake.members().runs("u-0", "0.2.0");
        fake.members().runs("u-1", "0.2.0");
        int polled = fake.members().releasePolls("u-1");
        fake.awaitStatus(s -> {
            assertThat(s.release).as("no one release while mixed").isEmpty();
            assertThat(s.members.get(0).release).isEqualTo("0.2.0");
            assertThat(s.members.get(2).release).isEqualTo("0.1.0");
            assertThat(condition(s).getStatus()).isEqualTo("True"); // 1 is all u-2's release knows
        });
        // several polls of the mixed set (the steady pace is 3.75 s here): still no raise
        waiting().until(() -> fake.members().releasePolls("u-1") >= polled + 2);
        assertThat(fake.members().raises())
                .as("no raise with a member of 0.1.0")
                .isEmpty();
        assertThat(fake.members().featureLevel("u-0")).isEqualTo(1);

        fake.members().runs("u-2", "0.2.0");
        fake.awaitStatus(s -> {
            assertThat(s.release).isEqualTo("0.2.0");
            assertThat(s.featureLevel).isEqualTo(2);
            assertThat(s.members).allSatisfy(m -> assertThat(m.featureLevel).isEqualTo(2));
            assertThat(condition(s).getStatus()).isEqualTo("True");
            assertThat(condition(s).getReason()).isEqualTo("AtTarget");
        });
        assertThat(fake.members().raises())
                .extracting(FakeMembers.Raise::pod)
                .containsExactlyInAnyOrder("u-0", "u-1", "u-2");
        assertThat(fake.members().raises()).allSatisfy(r -> {
            assertThat(r.level()).isEqualTo(2);
            assertThat(r.releases())
                    .as("every member ran 0.2.0 when the raise was sent")
                    .containsOnlyKeys("u-0", "u-1", "u-2")
                    .allSatisfy((pod, release) -> assertThat(release).isEqualTo("0.2.0"));
        });
    }

    @Test
    void theHoldKeepsTheLevelUntilSpecFeatureLevelAsksForIt() {
        fake.create(fake.cluster(3, s -> {
            s.upgrade = new UpgradeSpec();
            s.upgrade.holdFeatureLevel = true;
        }));
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.release).isEqualTo("0.2.0");
            assertThat(s.featureLevel).isEqualTo(1);
            assertThat(condition(s).getReason()).isEqualTo("Held");
            assertThat(condition(s).getMessage()).contains("holdFeatureLevel").contains("rolled back");
        });
        int polled = fake.members().releasePolls("u-0");
        waiting().until(() -> fake.members().releasePolls("u-0") >= polled + 2);
        assertThat(fake.members().raises()).as("held").isEmpty();

        fake.edit(s -> s.featureLevel = 2);
        fake.awaitStatus(s -> {
            assertThat(s.featureLevel).isEqualTo(2);
            assertThat(condition(s).getReason()).isEqualTo("AtTarget");
        });
        assertThat(fake.members().raises()).hasSize(3);
    }

    static Condition condition(DhtClusterStatus s) {
        return FakeCluster.condition(s, "FeatureLevel");
    }
}
