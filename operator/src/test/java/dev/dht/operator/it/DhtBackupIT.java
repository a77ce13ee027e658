package dev.dht.operator.it;

import static dev.dht.operator.testing.FakeCluster.waiting;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.BackupPhase;
import dev.dht.operator.api.v1alpha1.BackupSpec;
import dev.dht.operator.api.v1alpha1.BackupStorageSpec;
import dev.dht.operator.api.v1alpha1.CredentialsSecretRef;
import dev.dht.operator.api.v1alpha1.DhtBackup;
import dev.dht.operator.api.v1alpha1.DhtBackupSchedule;
import dev.dht.operator.api.v1alpha1.DhtBackupScheduleSpec;
import dev.dht.operator.api.v1alpha1.DhtBackupSpec;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.RestoreFromSpec;
import dev.dht.operator.api.v1alpha1.RestorePhase;
import dev.dht.operator.api.v1alpha1.RetentionSpec;
import dev.dht.operator.api.v1alpha1.ScalingStep;
import dev.dht.operator.backup.StoreView;
import dev.dht.operator.backup.reconciler.DhtBackupReconciler;
import dev.dht.operator.backup.reconciler.DhtBackupScheduleReconciler;
import dev.dht.operator.nodeadmin.HttpMemberAdmin;
import dev.dht.operator.scaling.ScalingHold;
import dev.dht.operator.security.SecretData;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.status.Conditions;
import dev.dht.operator.testing.FakeCluster;
import dev.dht.operator.testing.FakeMembers;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DhtBackup, DhtBackupSchedule and spec.restoreFrom against a real kube-apiserver + etcd: the three reconcilers, the
 * fake StatefulSet controller, and fake members answering the nodes' backup and restore endpoints on loopback
 * (scripted: done after a few polls, or held by the test). The schedule runs on a clock the test moves.
 */
@ExtendWith(RequiresKubeApiServer.class)
class DhtBackupIT {
    /** The schedule's clock starts half an hour after the next full hour of the real one (its objects are new). */
    static final Instant BASE =
            Instant.now().truncatedTo(java.time.temporal.ChronoUnit.HOURS).plus(Duration.ofHours(1));

    final AtomicReference<Instant> time = new AtomicReference<>(BASE.plus(Duration.ofMinutes(30)));
    final Clock clock = new Clock() {
        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return time.get();
        }
    };

    @RegisterExtension
    final FakeCluster fake = FakeCluster.several()
            .reconcilers((writes, addresses) -> List.of(
                    new DhtBackupReconciler(
                            Clock.systemUTC(), writes, new HttpMemberAdmin(), addresses, Duration.ofMillis(250)),
                    new DhtBackupScheduleReconciler(
                            clock, writes, new HttpMemberAdmin(), addresses, Duration.ofMillis(300))))
            .build();

    final KubernetesClient client = fake.client;

    @Test
    void aBackupFixesItsStartPointAsksEveryMemberHoldsScalingAndCompletes() {
        var nodes = fake.members("c", 5);
        fake.create(cluster("c", 3, s -> {}));
        fake.awaitStatus("c", s -> assertThat(s.phase).isEqualTo(Phase.Ready));

        nodes.backups().hold(1);
        fake.create(backup("b1", "c"));
        var running = awaitBackup("b1", s -> {
            assertThat(s.phase).isEqualTo(BackupPhase.Running);
            assertThat(s.members).hasSize(3);
            assertThat(s.members.get(1).phase).isEqualTo("uploading");
            assertThat(s.members.get(0).phase).isEqualTo("done");
        });
        assertThat(running.startPoint).isNotNull();
        assertThat(running.backupId).startsWith("b1-");
        long t0 = Instant.parse(running.startPoint).toEpochMilli();
        assertThat(nodes.backups().calls())
                .filteredOn(c -> c.startsWith("POST /v0/admin/backup "))
                .hasSize(3)
                .allSatisfy(c -> assertThat(c).contains("t0=" + t0).contains("id=" + running.backupId));

        // a scale asked for while the backup runs is held
        fake.edit("c", s -> s.replicas = 5);
        fake.awaitStatus("c", s -> {
            assertThat(s.scaling).isNotNull();
            assertThat(s.scaling.step).isEqualTo(ScalingStep.Held);
            var refused = Conditions.find(s.conditions, Conditions.REFUSED).orElseThrow();
            assertThat(refused.getStatus()).isEqualTo("True");
            assertThat(refused.getReason()).isEqualTo(ScalingHold.BACKUP_REASON);
            assertThat(refused.getMessage()).contains("DhtBackup b1");
        });
        assertThat(client.apps()
                        .statefulSets()
                        .inNamespace(fake.ns())
                        .withName("c")
                        .get()
                        .getSpec()
                        .getReplicas())
                .isEqualTo(3);

        nodes.backups().release(1);
        awaitBackup("b1", s -> {
            assertThat(s.phase).isEqualTo(BackupPhase.Completed);
            assertThat(s.bytes).isEqualTo(9000L);
            assertThat(s.completionTime).isNotNull();
            assertThat(Conditions.find(s.conditions, "Complete").orElseThrow().getStatus())
                    .isEqualTo("True");
        });
        assertThat(nodes.backups().completeBackups()).containsExactly(running.backupId);
        everyCallCarriedTheOperatorsToken("c", nodes);
        fake.awaitStatus("c", s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.readyReplicas).isEqualTo(5);
        });
    }

    @Test
    void aClusterWithoutStorageFailsItsBackupWithWhatToDo() {
        fake.members("n", 3);
        fake.create(cluster("n", 3, s -> s.backup = null));
        fake.awaitStatus("n", s -> assertThat(s.phase).isEqualTo(Phase.Ready));
        fake.create(backup("nb", "n"));
        awaitBackup("nb", s -> {
            assertThat(s.phase).isEqualTo(BackupPhase.Failed);
            assertThat(s.message).contains("has no spec.backup.storage");
        });
    }

    @Test
    void aStoreThatRefusesTheMembersIsAClusterConditionAndFailsTheBackupSayingWhy() {
        var nodes = fake.members("w", 3);
        String refused =
                "LIST (probe) at http://s3.test.svc:7070/dht-backups/: HTTP 403 SignatureDoesNotMatch (The request"
                        + " signature we calculated does not match the signature you provided.): the store refused the credentials"
                        + " (static keys in /etc/dht/backup/credentials): check the credentials Secret, or the role of the service"
                        + " account and what it allows on dht-backups";
        nodes.backups().refuseStore(refused);
        fake.create(cluster("w", 3, s -> {}));
        fake.awaitStatus("w", s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            var store = Conditions.find(s.conditions, StoreView.CONDITION).orElseThrow();
            assertThat(store.getStatus()).isEqualTo("False");
            assertThat(store.getReason()).isEqualTo("StoreNotUsable");
            assertThat(store.getMessage()).contains("w-0: " + refused).contains("w-2: LIST (probe)");
        });
        fake.create(backup("wb", "w"));
        awaitBackup("wb", s -> {
            assertThat(s.phase).isEqualTo(BackupPhase.Failed);
            assertThat(s.message)
                    .contains("failed 4 times")
                    .contains("SignatureDoesNotMatch")
                    .contains("check the credentials Secret");
        });

        nodes.backups().refuseStore(null); // the Secret fixed: the members' next probe succeeds
        fake.edit("w", s -> s.replicas = 4); // new pods: the members are asked again at once
        fake.awaitStatus("w", s -> {
            var store = Conditions.find(s.conditions, StoreView.CONDITION).orElseThrow();
            assertThat(store.getStatus()).isEqualTo("True");
            assertThat(store.getReason()).isEqualTo("StoreUsable");
        });
        everyCallCarriedTheOperatorsToken("w", nodes);
    }

    @Test
    void aClusterMadeFromABackupRestoresServesOnlyWhenDoneAndHoldsScalingMeanwhile() {
        var nodes = fake.members("r", 5);
        nodes.backups().hold(0);
        fake.create(cluster("r", 3, s -> {
            s.restoreFrom = new RestoreFromSpec();
            s.restoreFrom.backupId = "nightly-0123abcd";
        }));
        fake.awaitStatus("r", s -> {
            assertThat(s.phase).isEqualTo(Phase.Restoring);
            assertThat(s.restore.phase).isEqualTo(RestorePhase.Running);
            assertThat(s.restore.backupId).isEqualTo("nightly-0123abcd");
            assertThat(Conditions.find(s.conditions, Conditions.READY)
                            .orElseThrow()
                            .getReason())
                    .isEqualTo("Restoring");
        });
        assertThat(client.configMaps()
                        .inNamespace(fake.ns())
                        .withName("r-config")
                        .get()
                        .getData())
                .containsEntry("DHT_RESTORING", "true");
        waiting().untilAsserted(() -> {
            var asked = nodes.backups().calls().stream()
                    .filter(c -> c.startsWith("POST /v0/admin/restore "))
                    .toList();
            assertThat(asked).hasSize(3);
            for (int i = 0; i < 3; i++) {
                int share = i;
                assertThat(asked)
                        .as("member %d asked for share %d of 3", i, i)
                        .anySatisfy(c -> assertThat(c)
                                .startsWith("POST /v0/admin/restore " + share + " ")
                                .contains("id=nightly-0123abcd")
                                .containsPattern("[{ ]share=" + share + "[,}]")
                                .contains("shares=3"));
            }
        });
        fake.edit("r", s -> s.replicas = 4);
        fake.awaitStatus("r", s -> {
            assertThat(s.phase).isEqualTo(Phase.Restoring);
            assertThat(Conditions.find(s.conditions, Conditions.REFUSED)
                            .orElseThrow()
                            .getReason())
                    .isEqualTo(ScalingHold.RESTORE_REASON);
        });
        assertThat(nodes.backups().calls())
                .as("nobody serves before every share is sent")
                .noneMatch(c -> c.startsWith("POST /v0/admin/restore/finish"));

        nodes.backups().release(0);
        fake.awaitStatus("r", s -> {
            assertThat(s.restore.phase).isEqualTo(RestorePhase.Completed);
            assertThat(s.restore.recordsSent).isEqualTo(15000L);
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.readyReplicas)
                    .as("the held scale ran after the restore")
                    .isEqualTo(4);
        });
        assertThat(nodes.backups().calls())
                .filteredOn(c -> c.startsWith("POST /v0/admin/restore/finish"))
                .hasSize(3);
        everyCallCarriedTheOperatorsToken("r", nodes);
    }

    @Test
    void aScheduleRunsOnItsCronNeverTwiceAtOnceAndKeepsTheLastThree() {
        var nodes = fake.members("s", 3);
        fake.create(cluster("s", 3, s -> {}));
        fake.awaitStatus("s", s -> assertThat(s.phase).isEqualTo(Phase.Ready));
        var schedule = new DhtBackupSchedule();
        schedule.getMetadata().setName("hourly");
        schedule.setSpec(new DhtBackupScheduleSpec());
        schedule.getSpec().cluster = "s";
        schedule.getSpec().schedule = "@hourly";
        schedule.getSpec().keep = new RetentionSpec();
        schedule.getSpec().keep.last = 3;
        // The clock and the hold are set before the schedule exists: its first reconcile must not see the clock's
        // starting half hour (it would start hour 0's run, unheld, racing this thread: CI saw run(1) never start).
        // held: the first run stays Running; two more scheduled hours pass without a second run
        nodes.backups().hold(0);
        at(1);
        fake.create(schedule);
        awaitBackup(run(1), s -> assertThat(s.phase).isEqualTo(BackupPhase.Running));
        at(3);
        awaitSchedule(s -> assertThat(s.active).isEqualTo(run(1)));
        assertThat(scheduledBackups()).containsExactly(run(1));
        nodes.backups().release(0);
        awaitBackup(run(1), s -> assertThat(s.phase).isEqualTo(BackupPhase.Completed));
        // the run missed meanwhile starts once the previous one ends (only the latest)
        awaitBackup(run(3), s -> assertThat(s.phase).isEqualTo(BackupPhase.Completed));

        for (int hour = 4; hour <= 6; hour++) {
            at(hour);
            awaitBackup(run(hour), s -> assertThat(s.phase).isEqualTo(BackupPhase.Completed));
        }
        // five runs; retention keeps the last three, in the store and as objects
        waiting().untilAsserted(() -> assertThat(scheduledBackups()).containsExactlyInAnyOrder(run(4), run(5), run(6)));
        assertThat(nodes.backups().completeBackups()).hasSize(3);
        awaitSchedule(s -> {
            assertThat(s.kept).containsExactly(run(6), run(5), run(4));
            assertThat(s.lastPruned).isNotEmpty();
            assertThat(s.nextScheduleTime)
                    .isEqualTo(BASE.plus(Duration.ofHours(7)).toString());
        });
        assertThat(nodes.backups().calls())
                .filteredOn(c -> c.startsWith("POST /v0/admin/backup/prune"))
                .allSatisfy(c -> assertThat(c).contains("keepLast=3"));
        everyCallCarriedTheOperatorsToken("s", nodes);
    }

    /**
     * Client tokens are on by default (spec.auth): a node then refuses the status GETs without a token (401), so
     * every backup, restore and prune call carries the operator's own admin token of the cluster.
     */
    void everyCallCarriedTheOperatorsToken(String cluster, FakeMembers nodes) {
        var secret = client.secrets()
                .inNamespace(fake.ns())
                .withName(SecurityNames.tokensSecret(cluster))
                .get();
        String token = SecretData.text(secret, SecurityNames.OPERATOR_TOKEN_KEY).orElseThrow();
        assertThat(nodes.backups().authorizations())
                .isNotEmpty()
                .allSatisfy(a -> assertThat(a).isEqualTo("Bearer " + token));
    }

    /** The schedule's clock, 30 s after hour h (counted from BASE). */
    void at(int h) {
        time.set(BASE.plus(Duration.ofHours(h)).plusSeconds(30));
    }

    /** The DhtBackup of the run scheduled at hour h. */
    static String run(int h) {
        return dev.dht.operator.backup.BackupNames.scheduled("hourly", BASE.plus(Duration.ofHours(h)));
    }

    // ---- helpers ----

    DhtCluster cluster(String name, int replicas, Consumer<DhtClusterSpec> change) {
        return fake.cluster(name, replicas, spec -> {
            spec.backup = new BackupSpec();
            spec.backup.storage = new BackupStorageSpec();
            spec.backup.storage.endpoint = "http://s3.test.svc:7070";
            spec.backup.storage.bucket = "dht-backups";
            spec.backup.storage.credentialsSecret = new CredentialsSecretRef();
            spec.backup.storage.credentialsSecret.name = "s3";
            change.accept(spec);
        });
    }

    DhtBackup backup(String name, String cluster) {
        var backup = new DhtBackup();
        backup.getMetadata().setName(name);
        backup.setSpec(new DhtBackupSpec());
        backup.getSpec().cluster = cluster;
        return backup;
    }

    List<String> scheduledBackups() {
        return client
                .resources(DhtBackup.class)
                .inNamespace(fake.ns())
                .withLabel(DhtBackup.SCHEDULE_LABEL, "hourly")
                .list()
                .getItems()
                .stream()
                .filter(b -> b.getMetadata().getDeletionTimestamp() == null)
                .map(b -> b.getMetadata().getName())
                .sorted()
                .toList();
    }

    dev.dht.operator.api.v1alpha1.DhtBackupStatus awaitBackup(
            String name, Consumer<dev.dht.operator.api.v1alpha1.DhtBackupStatus> check) {
        var last = new AtomicReference<dev.dht.operator.api.v1alpha1.DhtBackupStatus>();
        waiting().untilAsserted(() -> {
            var b = client.resources(DhtBackup.class)
                    .inNamespace(fake.ns())
                    .withName(name)
                    .get();
            assertThat(b).as("DhtBackup " + name).isNotNull();
            assertThat(b.getStatus()).as("status of " + name).isNotNull();
            check.accept(b.getStatus());
            last.set(b.getStatus());
        });
        return last.get();
    }

    void awaitSchedule(Consumer<dev.dht.operator.api.v1alpha1.DhtBackupScheduleStatus> check) {
        waiting().untilAsserted(() -> {
            var s = client.resources(DhtBackupSchedule.class)
                    .inNamespace(fake.ns())
                    .withName("hourly")
                    .get();
            assertThat(s.getStatus()).isNotNull();
            check.accept(s.getStatus());
        });
    }
}
