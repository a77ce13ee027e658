package dev.dht.operator.it;

import static dev.dht.operator.testing.FakeCluster.condition;
import static dev.dht.operator.testing.FakeCluster.waiting;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.RepairSpec;
import dev.dht.operator.replacement.MemberReplacement;
import dev.dht.operator.status.Conditions;
import dev.dht.operator.testing.FakeCluster;
import dev.dht.operator.testing.Processes;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Repair and rebuilds as the operator shows and acts on them: the operator against a real kube-apiserver + etcd,
 * the fake StatefulSet controller, and fake members answering the nodes' {@code GET /v0/admin/repair} (scripted:
 * their last rounds, and a rebuild in progress). Each test gets its own namespace, cluster "r" and operator.
 */
@ExtendWith(RequiresKubeApiServer.class)
class RepairStatusIT {
    static final String NAME = "r";

    @RegisterExtension
    final FakeCluster fake = FakeCluster.named(NAME, 5).build();

    @Test
    void statusRepairSumsTheMembersReportsAndRepairOverdueTurnsTrueWhenARangeWasNotRepairedForTwoIntervals() {
        long now = System.currentTimeMillis();
        for (int i = 0; i < 3; i++) {
            fake.members().repaired(i, now - 60_000 * (i + 1), now - 3_600_000 * (i + 1), i, 1000L * i);
        }
        fake.create(fake.cluster(3, s -> {
            s.repair = new RepairSpec();
            s.repair.interval = "2h";
        }));
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.repair).isNotNull();
            assertThat(s.repair.enabled).isTrue();
            assertThat(s.repair.membersReporting).isEqualTo(3);
            assertThat(s.repair.lastCompleteRound).isEqualTo(time(now - 60_000));
            assertThat(s.repair.oldestRangeRepair)
                    .as("the oldest of all members")
                    .isEqualTo(time(now - 3 * 3_600_000));
            assertThat(s.repair.rangesOutOfSync).isEqualTo(3);
            assertThat(s.repair.bytesRepaired).isEqualTo(3000);
            assertThat(condition(s, Conditions.REPAIR_OVERDUE).getStatus()).isEqualTo("False");
        });
        assertThat(config("DHT_REPAIR_INTERVAL")).isEqualTo("7200s");

        // One member's ranges were last repaired 5 h ago: more than two intervals (4 h).
        fake.members().repaired(2, now - 60_000, now - 5 * 3_600_000, 0, 0);
        fake.awaitStatus(s -> {
            Condition overdue = condition(s, Conditions.REPAIR_OVERDUE);
            assertThat(overdue.getStatus()).isEqualTo("True");
            assertThat(overdue.getReason()).isEqualTo("RepairOverdue");
            assertThat(overdue.getMessage()).contains(time(now - 5 * 3_600_000)).contains("tombstones");
            assertThat(s.phase).as("overdue repair is a condition, not a phase").isEqualTo(Phase.Ready);
        });
        fake.members().repaired(2, System.currentTimeMillis(), System.currentTimeMillis(), 0, 0);
        fake.awaitStatus(s ->
                assertThat(condition(s, Conditions.REPAIR_OVERDUE).getStatus()).isEqualTo("False"));
    }

    @Test
    void aRebuildingMemberShowsItsProgressKeepsTheClusterDegradedAndAScaleWaitsForIt() {
        fake.create(fake.cluster(3, s -> {}));
        fake.awaitPhase(Phase.Ready);

        fake.members().rebuilding(1, 412, 3072);
        fake.awaitStatus(s -> {
            assertThat(s.phase)
                    .as("a ready pod is no proof that its data is back")
                    .isEqualTo(Phase.Degraded);
            assertThat(s.members.get(1).state).isEqualTo(MemberState.Rebuilding);
            assertThat(s.members.get(1).ready).isTrue();
            assertThat(s.members.get(1).rebuild).isEqualTo("412/3072 ranges, 412 MiB received");
            assertThat(condition(s, Conditions.READY).getStatus()).isEqualTo("False");
            assertThat(condition(s, Conditions.DEGRADED).getReason()).isEqualTo("MemberRebuilding");
            assertThat(condition(s, Conditions.DEGRADED).getMessage())
                    .contains("r-1")
                    .contains("412/3072");
        });

        fake.scale(5);
        fake.awaitStatus(s -> {
            Condition refused = condition(s, Conditions.REFUSED);
            assertThat(refused.getStatus()).isEqualTo("True");
            assertThat(refused.getReason()).isEqualTo("MemberRebuilding");
            assertThat(refused.getMessage()).contains("spec.replicas 5").contains("r-1");
            assertThat(s.phase).isEqualTo(Phase.Degraded);
        });
        // The operator decides on every poll: let it see the rebuild a few times more.
        int polls = fake.members().repairPolls(1);
        waiting().until(() -> fake.members().repairPolls(1) >= polls + 4);
        assertThat(fake.statefulSet().getSpec().getReplicas())
                .as("the StatefulSet waits")
                .isEqualTo(3);
        assertThat(fake.topologyMembers()).as("and so does the topology").isEqualTo(3);

        fake.members().rebuilt(1);
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.members).hasSize(5).extracting(m -> m.state).containsOnly(MemberState.Up);
            assertThat(condition(s, Conditions.REFUSED).getStatus()).isEqualTo("False");
        });
        assertThat(fake.statefulSet().getSpec().getReplicas()).isEqualTo(5);
        assertThat(fake.topologyMembers()).isEqualTo(5);
    }

    @Test
    void aMemberAnnotatedForReplacementGetsANewVolumeAndPodAndEndsRebuilt() {
        fake.create(fake.cluster(3, s -> {}));
        fake.awaitPhase(Phase.Ready);
        Pod before = pod("r-1");
        PersistentVolumeClaim claimBefore = claim("data-r-1");
        assertThat(claimBefore).isNotNull();
        String otherPod = pod("r-0").getMetadata().getUid();

        Processes.kubectl("annotate", "pod/r-1", MemberReplacement.ANNOTATION + "=true", "-n", fake.ns())
                .orFail("kubectl annotate");
        // The claim goes (kube-api-test runs no pvc-protection controller: the test lets it go, as it would once its
        // pod is deleted), the pod goes, and the StatefulSet makes both anew.
        waiting().untilAsserted(() -> {
            PersistentVolumeClaim c = claim("data-r-1");
            if (c != null
                    && c.getMetadata().getUid().equals(claimBefore.getMetadata().getUid())) {
                assertThat(c.getMetadata().getDeletionTimestamp())
                        .as("the old claim is being deleted")
                        .isNotNull();
                fake.client.resource(c).edit(x -> {
                    x.getMetadata().setFinalizers(List.of());
                    return x;
                });
            }
            Pod now = pod("r-1");
            assertThat(now).isNotNull();
            assertThat(now.getMetadata().getUid())
                    .as("a new pod")
                    .isNotEqualTo(before.getMetadata().getUid());
            PersistentVolumeClaim fresh = claim("data-r-1");
            assertThat(fresh).isNotNull();
            assertThat(fresh.getMetadata().getUid())
                    .as("on a new claim")
                    .isNotEqualTo(claimBefore.getMetadata().getUid());
            assertThat(fresh.getMetadata().getDeletionTimestamp()).isNull();
        });
        assertThat(pod("r-1").getMetadata().getAnnotations()).doesNotContainKey(MemberReplacement.ANNOTATION);
        assertThat(pod("r-0").getMetadata().getUid())
                .as("no other member touched")
                .isEqualTo(otherPod);

        // The node on the new volume rebuilds (as a real one does, finding a new data directory among members with
        // data).
        fake.members().rebuilding(1, 0, 3072);
        fake.awaitStatus(s -> {
            assertThat(s.members.get(1).state).isEqualTo(MemberState.Rebuilding);
            assertThat(s.phase).isEqualTo(Phase.Degraded);
        });
        fake.members().rebuilding(1, 3000, 3072);
        fake.awaitStatus(s -> assertThat(s.members.get(1).rebuild).startsWith("3000/3072 ranges"));
        fake.members().rebuilt(1);
        fake.awaitStatus(s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.members.get(1).state).isEqualTo(MemberState.Up);
            assertThat(s.members.get(1).rebuild).isNull();
        });
    }

    // ---------------------------------------------------------------------------------------------

    static String time(long millis) {
        return Instant.ofEpochMilli(millis)
                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                .toString();
    }

    String config(String key) {
        return fake.config().getData().get(key);
    }

    Pod pod(String name) {
        return fake.client.pods().inNamespace(fake.ns()).withName(name).get();
    }

    PersistentVolumeClaim claim(String name) {
        return fake.client
                .persistentVolumeClaims()
                .inNamespace(fake.ns())
                .withName(name)
                .get();
    }
}
