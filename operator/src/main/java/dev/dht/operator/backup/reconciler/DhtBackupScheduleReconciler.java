package dev.dht.operator.backup.reconciler;

import dev.dht.operator.api.v1alpha1.BackupPhase;
import dev.dht.operator.api.v1alpha1.Defaults;
import dev.dht.operator.api.v1alpha1.DhtBackup;
import dev.dht.operator.api.v1alpha1.DhtBackupSchedule;
import dev.dht.operator.api.v1alpha1.DhtBackupScheduleStatus;
import dev.dht.operator.api.v1alpha1.DhtBackupSpec;
import dev.dht.operator.backup.BackupNames;
import dev.dht.operator.backup.ClusterView;
import dev.dht.operator.backup.Cron;
import dev.dht.operator.backup.SchedulePlan;
import dev.dht.operator.model.Owners;
import dev.dht.operator.nodeadmin.AdminAnswer;
import dev.dht.operator.nodeadmin.MemberAddresses;
import dev.dht.operator.nodeadmin.MemberAdmin;
import dev.dht.operator.nodeadmin.NodeCredentials;
import dev.dht.operator.nodeadmin.OperatorAccess;
import dev.dht.operator.reconciler.StatusWrites;
import dev.dht.operator.reconciler.WriteMetrics;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a DhtBackupSchedule: starts a DhtBackup when the cron schedule says (its name made from the scheduled
 * time, so a restarted operator never starts the same run twice; none while one runs), and after each run applies
 * retention: a member deletes the backups beyond the count and age from the store, manifests first, then every
 * file no remaining backup references ({@code POST /v0/admin/backup/prune}), and the operator deletes their
 * DhtBackups. Never while a backup of the cluster runs.
 */
@ControllerConfiguration(name = DhtBackupScheduleReconciler.NAME, fieldManager = "dht-operator")
public class DhtBackupScheduleReconciler implements Reconciler<DhtBackupSchedule> {
    public static final String NAME = "dhtbackupschedule";
    static final Duration ACTIVE_POLL = Duration.ofSeconds(10);
    static final Duration MAX_SLEEP = Duration.ofHours(1);
    static final Duration PRUNE_TIMEOUT = Duration.ofMinutes(10);
    private static final Logger log = LoggerFactory.getLogger(DhtBackupScheduleReconciler.class);

    private final Clock clock;
    private final WriteMetrics metrics;
    private final MemberAdmin admin;
    private final MemberAddresses addresses;
    private final Duration maxSleep;

    public DhtBackupScheduleReconciler(
            Clock clock, WriteMetrics metrics, MemberAdmin admin, MemberAddresses addresses) {
        this(clock, metrics, admin, addresses, MAX_SLEEP);
    }

    /** @param maxSleep the longest wait between two reconciles of a schedule (tests shorten it) */
    public DhtBackupScheduleReconciler(
            Clock clock, WriteMetrics metrics, MemberAdmin admin, MemberAddresses addresses, Duration maxSleep) {
        this.clock = clock;
        this.metrics = metrics;
        this.admin = admin;
        this.addresses = addresses;
        this.maxSleep = maxSleep;
    }

    @Override
    public List<EventSource<?, DhtBackupSchedule>> prepareEventSources(EventSourceContext<DhtBackupSchedule> context) {
        // A run's phase changes wake its schedule (retention after each run).
        var runs = InformerEventSourceConfiguration.from(DhtBackup.class, DhtBackupSchedule.class)
                .withLabelSelector(DhtBackup.SCHEDULE_LABEL)
                .withSecondaryToPrimaryMapper((DhtBackup b) -> Set.of(new ResourceID(
                        b.getMetadata().getLabels().get(DhtBackup.SCHEDULE_LABEL),
                        b.getMetadata().getNamespace())))
                .build();
        return List.of(new InformerEventSource<>(runs, context));
    }

    @Override
    public UpdateControl<DhtBackupSchedule> reconcile(DhtBackupSchedule schedule, Context<DhtBackupSchedule> context) {
        var now = clock.instant();
        var spec = schedule.getSpec();
        String ns = schedule.getMetadata().getNamespace();
        String name = schedule.getMetadata().getName();
        var status = schedule.getStatus() == null ? new DhtBackupScheduleStatus() : schedule.getStatus();
        var next = copy(status);
        Cron cron;
        try {
            cron = Cron.parse(spec.schedule);
        } catch (IllegalArgumentException e) {
            next.message = "spec.schedule: " + e.getMessage();
            write(schedule, next, context);
            return UpdateControl.noUpdate();
        }
        var runs = context.getSecondaryResources(DhtBackup.class).stream()
                .filter(b -> name.equals(b.getMetadata().getLabels().get(DhtBackup.SCHEDULE_LABEL)))
                .map(b -> new SchedulePlan.Run(
                        b.getMetadata().getName(),
                        b.getStatus() == null ? null : b.getStatus().phase,
                        b.getStatus() == null ? null : b.getStatus().backupId,
                        b.getStatus() == null || b.getStatus().startPoint == null
                                ? null
                                : Instant.parse(b.getStatus().startPoint),
                        Instant.parse(b.getMetadata().getCreationTimestamp())))
                .toList();
        var keep = spec.keep;
        int keepLast = keep == null || keep.last == null ? Defaults.BACKUP_KEEP_LAST : keep.last;
        var maxAge = keep == null || keep.maxAge == null
                ? Optional.<Duration>empty()
                : Optional.of(SchedulePlan.parseAge(keep.maxAge));
        var decision = SchedulePlan.decide(
                cron,
                Boolean.TRUE.equals(spec.suspend),
                Optional.ofNullable(status.lastScheduleTime).map(Instant::parse),
                Instant.parse(schedule.getMetadata().getCreationTimestamp()),
                runs,
                keepLast,
                maxAge,
                now);

        next.active = decision.active().orElse(null);
        next.kept = decision.kept();
        next.nextScheduleTime = decision.next().map(Instant::toString).orElse(null);
        if (decision.start().isPresent()) {
            String run = BackupNames.scheduled(name, decision.start().get());
            create(context, schedule, run);
            next.lastScheduleTime = decision.start().get().toString();
            next.lastBackup = run;
            next.active = run;
            next.message = "started " + run;
            log.info("schedule {}/{}: started {}", ns, name, run);
        } else if (decision.prune()) {
            prune(context, schedule, runs, keepLast, maxAge, next);
        }
        write(schedule, next, context);
        if (next.active != null) {
            return UpdateControl.<DhtBackupSchedule>noUpdate().rescheduleAfter(min(ACTIVE_POLL, maxSleep));
        }
        var sleep = decision.next()
                .map(t -> Duration.between(now, t).plusSeconds(1))
                .orElse(maxSleep);
        return UpdateControl.<DhtBackupSchedule>noUpdate()
                .rescheduleAfter(sleep.isNegative() ? Duration.ofSeconds(1) : min(sleep, maxSleep));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private void create(Context<DhtBackupSchedule> context, DhtBackupSchedule schedule, String run) {
        var backup = new DhtBackup();
        backup.getMetadata().setName(run);
        backup.getMetadata().setNamespace(schedule.getMetadata().getNamespace());
        backup.getMetadata()
                .setLabels(
                        Map.of(DhtBackup.SCHEDULE_LABEL, schedule.getMetadata().getName()));
        // Owned by the schedule: deleting it deletes its DhtBackup objects (never what is stored).
        backup.getMetadata().setOwnerReferences(List.of(Owners.ownerReference(schedule)));
        var spec = new DhtBackupSpec();
        spec.cluster = schedule.getSpec().cluster;
        backup.setSpec(spec);
        try {
            context.getClient().resource(backup).create();
            metrics.write(DhtBackup.KIND);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            // already made by an earlier reconcile (the name comes from the scheduled time)
        }
    }

    /** Retention: one member deletes what goes from the store; then the DhtBackups of what went. */
    private void prune(
            Context<DhtBackupSchedule> context,
            DhtBackupSchedule schedule,
            List<SchedulePlan.Run> runs,
            int keepLast,
            Optional<Duration> maxAge,
            DhtBackupScheduleStatus next) {
        String ns = schedule.getMetadata().getNamespace();
        String clusterName = schedule.getSpec().cluster;
        var client = context.getClient();
        if (ClusterBackups.running(client, ns, clusterName).findAny().isPresent()) {
            next.message = "retention waits: a backup of " + clusterName + " runs";
            return;
        }
        var cluster = ClusterBackups.cluster(client, ns, clusterName);
        var view = ClusterView.of(cluster);
        if (view.memberPods().isEmpty()) {
            next.message = "retention waits: no member of " + clusterName + " to ask";
            return;
        }
        var candidates = new ArrayList<String>();
        var objectsByBackupId = new java.util.HashMap<String, String>();
        var neverStarted = new ArrayList<String>();
        for (var r : runs) {
            if (r.backupId() != null) {
                candidates.add(r.backupId());
                objectsByBackupId.put(r.backupId(), r.name());
            } else if (r.phase() == BackupPhase.Failed) {
                neverStarted.add(r.name());
            }
        }
        var body = new java.util.LinkedHashMap<String, Object>();
        body.put("candidates", candidates);
        body.put("keepLast", keepLast);
        maxAge.ifPresent(a -> body.put("maxAgeSeconds", a.toSeconds()));
        String url = addresses.privilegedUrl(
                ns, view.memberPods().get(0), view.memberUrls().get(0));
        var credentials = cluster.map(c -> OperatorAccess.read(client, c)).orElse(NodeCredentials.none());
        AdminAnswer a = admin.authenticated(credentials)
                .call(url, "POST", "/v0/admin/backup/prune", body, PRUNE_TIMEOUT)
                .join();
        if (a.status() != 200) {
            next.message = "retention failed, tried again next time: " + a.reason();
            log.warn(
                    "schedule {}/{}: prune failed: {}",
                    ns,
                    schedule.getMetadata().getName(),
                    a.reason());
            return;
        }
        Set<String> gone = new HashSet<>(a.strings("deleted"));
        gone.addAll(a.strings("absent"));
        var deleted = new ArrayList<String>(neverStarted);
        gone.stream().map(objectsByBackupId::get).filter(n -> n != null).forEach(deleted::add);
        for (String n : deleted) {
            client.resources(DhtBackup.class).inNamespace(ns).withName(n).delete();
            metrics.write(DhtBackup.KIND);
        }
        next.lastPruneTime = clock.instant().toString();
        next.lastPruned = deleted.stream().sorted().toList();
        next.message = "retention: deleted " + deleted.size() + " backup(s), " + a.number("files", "deleted")
                + " file(s) no kept backup references";
        log.info("schedule {}/{}: {}", ns, schedule.getMetadata().getName(), next.message);
    }

    static DhtBackupScheduleStatus copy(DhtBackupScheduleStatus s) {
        var c = new DhtBackupScheduleStatus();
        c.lastScheduleTime = s.lastScheduleTime;
        c.nextScheduleTime = s.nextScheduleTime;
        c.lastBackup = s.lastBackup;
        c.active = s.active;
        c.kept = s.kept == null ? new ArrayList<>() : new ArrayList<>(s.kept);
        c.lastPruneTime = s.lastPruneTime;
        c.lastPruned = s.lastPruned == null ? new ArrayList<>() : new ArrayList<>(s.lastPruned);
        c.message = s.message;
        return c;
    }

    private void write(DhtBackupSchedule schedule, DhtBackupScheduleStatus status, Context<DhtBackupSchedule> context) {
        StatusWrites.write(schedule, status, DhtBackupSchedule::new, context, metrics);
    }
}
