package dev.dht.operator.backup.reconciler;

import dev.dht.operator.api.v1alpha1.BackupPhase;
import dev.dht.operator.api.v1alpha1.DhtBackup;
import dev.dht.operator.api.v1alpha1.DhtBackupStatus;
import dev.dht.operator.api.v1alpha1.MemberBackupStatus;
import dev.dht.operator.backup.BackupAdmission;
import dev.dht.operator.backup.BackupNames;
import dev.dht.operator.backup.BackupProgress;
import dev.dht.operator.backup.ClusterView;
import dev.dht.operator.nodeadmin.AdminAnswer;
import dev.dht.operator.nodeadmin.MemberAddresses;
import dev.dht.operator.nodeadmin.MemberAdmin;
import dev.dht.operator.nodeadmin.OperatorAccess;
import dev.dht.operator.reconciler.StatusWrites;
import dev.dht.operator.reconciler.WriteMetrics;
import dev.dht.operator.status.Conditions;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a DhtBackup (docs/operations.md, "Back up and restore"): a Pending backup waits until its cluster is
 * Ready and settled and no other backup of it runs ({@link BackupAdmission}); then the start point T0, the id and the
 * member list are written into the status <em>before</em> any member is asked, so a restarted operator continues
 * the same backup; Running, it asks the members ({@code GET/POST /v0/admin/backup}) and follows them
 * ({@link BackupProgress}), and once all are done asks one to write the manifest ({@code POST
 * /v0/admin/backup/finish}): Completed. While it runs the DhtCluster holds scaling (scaling/ScalingHold).
 */
@ControllerConfiguration(name = DhtBackupReconciler.NAME, fieldManager = "dht-operator")
public class DhtBackupReconciler implements Reconciler<DhtBackup> {
    public static final String NAME = "dhtbackup";
    static final Duration POLL = Duration.ofSeconds(2);
    static final Duration WAIT = Duration.ofSeconds(5);
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    static final Duration FINISH_TIMEOUT = Duration.ofMinutes(2);
    private static final Logger log = LoggerFactory.getLogger(DhtBackupReconciler.class);

    private final Clock clock;
    private final WriteMetrics metrics;
    private final MemberAdmin admin;
    private final MemberAddresses addresses;
    private final Duration poll;

    public DhtBackupReconciler(
            Clock clock, WriteMetrics metrics, MemberAdmin admin, MemberAddresses addresses, Duration poll) {
        this.clock = clock;
        this.metrics = metrics;
        this.admin = admin;
        this.addresses = addresses;
        this.poll = poll;
    }

    @Override
    public UpdateControl<DhtBackup> reconcile(DhtBackup backup, Context<DhtBackup> context) {
        var status = backup.getStatus() == null ? new DhtBackupStatus() : backup.getStatus();
        if (status.phase == BackupPhase.Completed || status.phase == BackupPhase.Failed) {
            return UpdateControl.noUpdate();
        }
        String ns = backup.getMetadata().getNamespace();
        String clusterName = backup.getSpec().cluster;
        var client = context.getClient();
        Instant now = clock.instant();
        if (status.phase == null || status.phase == BackupPhase.Pending) {
            var view = ClusterView.of(ClusterBackups.cluster(client, ns, clusterName));
            var running = ClusterBackups.running(client, ns, clusterName)
                    .map(b -> b.getMetadata().getName())
                    .filter(name -> !name.equals(backup.getMetadata().getName()))
                    .findFirst();
            var decision = BackupAdmission.decide(view, clusterName, running);
            var next = copy(status);
            switch (decision.verdict()) {
                case WAIT -> {
                    next.phase = BackupPhase.Pending;
                    next.message = decision.message();
                    write(backup, withConditions(next, now), context);
                    return UpdateControl.<DhtBackup>noUpdate().rescheduleAfter(WAIT);
                }
                case FAIL -> {
                    next.phase = BackupPhase.Failed;
                    next.message = decision.message();
                    next.completionTime = now.toString();
                    write(backup, withConditions(next, now), context);
                    return UpdateControl.noUpdate();
                }
                case START -> {
                    // T0 and the member list are stored before any member is asked: a restarted operator keeps them.
                    next.phase = BackupPhase.Running;
                    next.backupId = BackupNames.backupId(backup);
                    next.startPoint = now.toString();
                    next.memberUrls = view.memberUrls();
                    next.members = new ArrayList<>();
                    for (String pod : view.memberPods()) {
                        var m = new MemberBackupStatus();
                        m.name = pod;
                        m.phase = "starting";
                        next.members.add(m);
                    }
                    next.message = decision.message();
                    write(backup, withConditions(next, now), context);
                    log.info(
                            "backup {}/{} of {}: start point {}, {} members",
                            ns,
                            backup.getMetadata().getName(),
                            clusterName,
                            next.startPoint,
                            next.members.size());
                    return UpdateControl.<DhtBackup>noUpdate().rescheduleAfter(Duration.ofMillis(1));
                }
                default -> throw new IllegalStateException();
            }
        }
        // Running: ask every member how far it got; start, retry, or finish
        var pods = status.members.stream().map(m -> m.name).toList();
        var urls = new LinkedHashMap<Integer, String>();
        var privileged = new LinkedHashMap<Integer, String>();
        for (int i = 0; i < pods.size(); i++) {
            urls.put(i, addresses.adminUrl(ns, pods.get(i), status.memberUrls.get(i)));
            privileged.put(i, addresses.privilegedUrl(ns, pods.get(i), status.memberUrls.get(i)));
        }
        // The operator's token and client-port TLS of the cluster: the status GETs go straight to the members.
        var admin = this.admin.authenticated(OperatorAccess.read(client, ns, clusterName));
        var reports = admin.callAll(urls, "GET", "/v0/admin/backup", i -> null, CALL_TIMEOUT);
        var step = BackupProgress.next(status.backupId, pods, status.members, reports);
        var next = copy(status);
        next.members = step.members();
        next.message = step.message();
        long t0 = Instant.parse(status.startPoint).toEpochMilli();
        for (int i : step.toStart()) {
            AdminAnswer a = admin.call(
                            privileged.get(i),
                            "POST",
                            "/v0/admin/backup",
                            Map.of("id", status.backupId, "t0", t0, "member", i),
                            CALL_TIMEOUT)
                    .join();
            if (a.status() != 202) {
                next.members.get(i).message = "asked to start, answered: " + a.reason();
            }
        }
        if (step.failure().isPresent()) {
            next.phase = BackupPhase.Failed;
            next.completionTime = now.toString();
            log.warn(
                    "backup {}/{} failed: {}",
                    ns,
                    backup.getMetadata().getName(),
                    step.failure().get());
        } else if (step.finish()) {
            AdminAnswer finished = admin.call(
                            privileged.get(0),
                            "POST",
                            "/v0/admin/backup/finish",
                            Map.of("id", status.backupId, "members", pods.size()),
                            FINISH_TIMEOUT)
                    .join();
            if (finished.status() == 200) {
                next.phase = BackupPhase.Completed;
                next.completionTime = now.toString();
                next.bytes = finished.number("bytes");
                next.bytesUploaded = next.members.stream()
                        .mapToLong(m -> m.bytesUploaded == null ? 0 : m.bytesUploaded)
                        .sum();
                next.message = "complete: " + pods.size() + " members, " + next.bytes + " bytes (" + next.bytesUploaded
                        + " uploaded, the rest already stored)";
                log.info("backup {}/{} completed: {}", ns, backup.getMetadata().getName(), next.message);
            } else if (finished.status() == 409) {
                next.phase = BackupPhase.Failed;
                next.completionTime = now.toString();
                next.message = "not complete: " + finished.reason();
            } else {
                next.message = "writing the manifest: " + finished.reason() + "; trying again";
            }
        }
        write(backup, withConditions(next, now), context);
        boolean done = next.phase == BackupPhase.Completed || next.phase == BackupPhase.Failed;
        return done
                ? UpdateControl.noUpdate()
                : UpdateControl.<DhtBackup>noUpdate().rescheduleAfter(poll);
    }

    static DhtBackupStatus copy(DhtBackupStatus s) {
        var c = new DhtBackupStatus();
        c.phase = s.phase;
        c.backupId = s.backupId;
        c.startPoint = s.startPoint;
        c.completionTime = s.completionTime;
        c.memberUrls = s.memberUrls;
        c.members = s.members == null ? new ArrayList<>() : new ArrayList<>(s.members);
        c.bytes = s.bytes;
        c.bytesUploaded = s.bytesUploaded;
        c.message = s.message;
        c.conditions = s.conditions == null ? new ArrayList<>() : new ArrayList<>(s.conditions);
        return c;
    }

    private DhtBackupStatus withConditions(DhtBackupStatus s, Instant now) {
        List<io.fabric8.kubernetes.api.model.Condition> previous = s.conditions;
        s.conditions = List.of(
                Conditions.condition(
                        previous,
                        "Complete",
                        s.phase == BackupPhase.Completed,
                        s.phase == BackupPhase.Completed ? "ManifestWritten" : String.valueOf(s.phase),
                        s.message,
                        null,
                        now),
                Conditions.condition(
                        previous,
                        "Failed",
                        s.phase == BackupPhase.Failed,
                        s.phase == BackupPhase.Failed ? "BackupFailed" : "AsExpected",
                        s.message,
                        null,
                        now));
        return s;
    }

    private void write(DhtBackup backup, DhtBackupStatus status, Context<DhtBackup> context) {
        StatusWrites.write(backup, status, DhtBackup::new, context, metrics);
    }
}
