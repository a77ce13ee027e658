package dev.dht.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.BackupPhase;
import dev.dht.operator.api.v1alpha1.DhtBackup;
import dev.dht.operator.api.v1alpha1.DhtBackupStatus;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.MemberBackupStatus;
import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.MemberStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A status is written when, and only when, it differs from the one the resource holds. */
class StatusWritesTest {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    @Test
    void theSameStatusAsAnotherObjectIsNotWrittenAgain() {
        var cluster = cluster(status("Up", "AllMembersReady"));
        // What the API server returned last time: the same content, other objects.
        var stored = JSON.unmarshal(JSON.asJson(cluster), DhtCluster.class);

        assertThat(StatusWrites.statusOnly(stored, status("Up", "AllMembersReady"), DhtCluster::new))
                .isEmpty();
    }

    @Test
    void aChangeAnywhereInTheStatusIsWrittenAsTheStatusAlone() {
        var cluster = cluster(status("Up", "AllMembersReady"));
        cluster.getMetadata().setResourceVersion("7");

        var rebuilding = StatusWrites.statusOnly(cluster, status("Rebuilding", "AllMembersReady"), DhtCluster::new);
        assertThat(rebuilding).isPresent();
        assertThat(rebuilding.get().getStatus().members.get(1).state).isEqualTo(MemberState.Rebuilding);
        assertThat(rebuilding.get().getMetadata().getName()).isEqualTo("kv");
        assertThat(rebuilding.get().getMetadata().getNamespace()).isEqualTo("ns");
        assertThat(rebuilding.get().getMetadata().getResourceVersion()).isNull();

        assertThat(StatusWrites.statusOnly(cluster, status("Up", "MemberNotReady"), DhtCluster::new))
                .as("only a condition's reason differs")
                .isPresent();
    }

    @Test
    void aResourceWithoutStatusGetsItsFirst() {
        assertThat(StatusWrites.statusOnly(cluster(null), status("Up", "AllMembersReady"), DhtCluster::new))
                .isPresent();
    }

    @Test
    void theBackupStatusesCompareTheSameWay() {
        var backup = new DhtBackup();
        backup.getMetadata().setName("b");
        backup.getMetadata().setNamespace("ns");
        backup.setStatus(backupStatus(10L));

        assertThat(StatusWrites.statusOnly(backup, backupStatus(10L), DhtBackup::new))
                .isEmpty();
        assertThat(StatusWrites.statusOnly(backup, backupStatus(11L), DhtBackup::new))
                .isPresent();
    }

    private static DhtCluster cluster(DhtClusterStatus status) {
        var cluster = new DhtCluster();
        cluster.getMetadata().setName("kv");
        cluster.getMetadata().setNamespace("ns");
        cluster.setStatus(status);
        return cluster;
    }

    private static DhtClusterStatus status(String secondMember, String readyReason) {
        var s = new DhtClusterStatus();
        s.observedGeneration = 3L;
        s.phase = Phase.Ready;
        s.replicas = 2;
        s.readyReplicas = 2;
        s.topologyVersion = 5L;
        s.members = new ArrayList<>(List.of(
                new MemberStatus("kv-0", "http://kv-0", MemberState.Up, true),
                new MemberStatus("kv-1", "http://kv-1", MemberState.valueOf(secondMember), true)));
        s.conditions = new ArrayList<>(List.of(new ConditionBuilder()
                .withType("Ready")
                .withStatus("True")
                .withReason(readyReason)
                .withLastTransitionTime("2026-01-01T00:00:00Z")
                .build()));
        return s;
    }

    private static DhtBackupStatus backupStatus(long filesDone) {
        var s = new DhtBackupStatus();
        s.phase = BackupPhase.Running;
        s.backupId = "b-1";
        var m = new MemberBackupStatus();
        m.name = "kv-0";
        m.phase = "uploading";
        m.filesDone = filesDone;
        s.members = new ArrayList<>(List.of(m));
        return s;
    }
}
