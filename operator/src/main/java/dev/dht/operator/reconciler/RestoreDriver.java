package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.BackupPhase;
import dev.dht.operator.api.v1alpha1.DhtBackup;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.RestorePhase;
import dev.dht.operator.api.v1alpha1.RestoreStatus;
import dev.dht.operator.backup.RestorePlan;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Member;
import dev.dht.operator.nodeadmin.AdminAnswer;
import dev.dht.operator.nodeadmin.MemberAddresses;
import dev.dht.operator.nodeadmin.MemberAdmin;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O of a cluster's restore (spec.restoreFrom) for the DhtCluster reconciler: resolves the backup's id, asks
 * the members for their progress and makes the calls {@link RestorePlan} decides. Only while the restore is not
 * Completed; afterwards it costs nothing.
 */
public final class RestoreDriver {
    private static final Logger log = LoggerFactory.getLogger(RestoreDriver.class);
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    private final MemberAdmin admin;
    private final MemberAddresses addresses;
    /** Failures asked again, per cluster and ordinal (lost with the operator: a restarted one retries afresh). */
    private final Map<String, Map<Integer, Integer>> retries = new ConcurrentHashMap<>();

    public RestoreDriver(MemberAdmin admin, MemberAddresses addresses) {
        this.admin = admin;
        this.addresses = addresses;
    }

    /**
     * The restore's status after this step, or empty when the cluster was not made from a backup.
     *
     * @param members      the topology's members: the restore's shares, in this order (not spec.replicas, which a held
     *                     scale may have raised; the restore places records by the ring it started with)
     * @param membersReady every one of those members' pods is ready and the member list is not changing
     * @param credentials  what the operator presents on the cluster's client port (token, TLS)
     */
    public Optional<RestoreStatus> drive(
            DhtCluster cluster,
            ClusterModel model,
            List<Member> members,
            KubernetesClient client,
            boolean membersReady,
            dev.dht.operator.nodeadmin.NodeCredentials credentials,
            Instant now) {
        var from = model.backup().restoreFrom();
        if (from.isEmpty()) {
            return Optional.empty();
        }
        var previous = Optional.ofNullable(cluster.getStatus()).map(s -> s.restore);
        if (previous.isPresent()
                && (previous.get().phase == RestorePhase.Completed || previous.get().phase == RestorePhase.Failed)) {
            return previous;
        }
        String backupId = from.get().backupId;
        if (backupId == null) {
            var backup = client.resources(DhtBackup.class)
                    .inNamespace(model.namespace())
                    .withName(from.get().backup)
                    .get();
            if (backup == null || backup.getStatus() == null || backup.getStatus().phase != BackupPhase.Completed) {
                String why = backup == null
                        ? "DhtBackup " + from.get().backup + " does not exist in " + model.namespace()
                        : "DhtBackup " + from.get().backup + " is "
                                + (backup.getStatus() == null ? "new" : backup.getStatus().phase) + ", not Completed";
                return Optional.of(
                        backup != null && backup.getStatus() != null && backup.getStatus().phase == BackupPhase.Failed
                                ? RestorePlan.failed(from.get().backup, previous, why, now)
                                        .status()
                                : RestorePlan.waiting(from.get().backup, previous, why, now)
                                        .status());
            }
            backupId = backup.getStatus().backupId;
        }
        if (!membersReady) {
            return Optional.of(RestorePlan.waiting(backupId, previous, "waiting for every member to be ready", now)
                    .status());
        }
        var pods = members.stream().map(m -> m.pod(model.name())).toList();
        var urls = new LinkedHashMap<Integer, String>();
        var privileged = new LinkedHashMap<Integer, String>();
        for (int i = 0; i < pods.size(); i++) {
            String memberUrl = members.get(i).url(model);
            urls.put(i, addresses.adminUrl(model.namespace(), pods.get(i), memberUrl));
            privileged.put(i, addresses.privilegedUrl(model.namespace(), pods.get(i), memberUrl));
        }
        var admin = this.admin.authenticated(credentials);
        var reports = admin.callAll(urls, "GET", "/v0/admin/restore", i -> null, CALL_TIMEOUT);
        String key = model.namespace() + "/" + model.name();
        var counted = retries.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
        var step = RestorePlan.next(backupId, pods, reports, previous, counted, now);
        String id = backupId;
        var refusals = new java.util.ArrayList<String>();
        for (int i : step.toStart()) {
            if (reports.get(i) != null && "failed".equals(reports.get(i).string("phase"))) {
                counted.merge(i, 1, Integer::sum);
            }
            AdminAnswer a = admin.call(
                            privileged.get(i),
                            "POST",
                            "/v0/admin/restore",
                            Map.of("id", id, "share", i, "shares", pods.size()),
                            CALL_TIMEOUT)
                    .join();
            if (a.status() == 400) {
                return Optional.of(RestorePlan.failed(
                                id, previous, pods.get(i) + " refused to restore " + id + ": " + a.reason(), now)
                        .status());
            }
            if (a.status() != 202) {
                // 409: not now (no stable topology yet) or not this backup (wrong key, incomplete): asked again each
                // poll,
                // the reason in the status
                log.warn("{}: {} refused restore share {} of {}: {}", key, pods.get(i), i, pods.size(), a.reason());
                refusals.add(pods.get(i) + " refused: " + a.reason());
            }
        }
        if (!refusals.isEmpty()) {
            step.status().message = String.join("; ", refusals);
        }
        for (int i : step.finish()) {
            AdminAnswer a = admin.call(
                            privileged.get(i), "POST", "/v0/admin/restore/finish", Map.of("id", id), CALL_TIMEOUT)
                    .join();
            if (a.status() != 200) {
                log.warn("{}: {} did not take the end of restore {}: {}", key, pods.get(i), id, a.reason());
            }
        }
        if (step.status().phase == RestorePhase.Completed) {
            retries.remove(key);
            log.info("{}: restore of {} completed ({} records)", key, id, step.status().recordsSent);
        }
        return Optional.of(step.status());
    }

    /** Whether a restore is not done yet: scaling waits, and the reconcile polls again soon. */
    public static boolean inProgress(Optional<RestoreStatus> restore) {
        return restore.isPresent() && restore.get().phase != RestorePhase.Completed;
    }
}
