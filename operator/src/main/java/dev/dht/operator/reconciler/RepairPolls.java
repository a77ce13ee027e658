package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.Member;
import dev.dht.operator.model.Names;
import dev.dht.operator.nodeadmin.MemberAdmin;
import dev.dht.operator.repair.MemberRepair;
import dev.dht.operator.scaling.PodReadiness;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The members' repair reports ({@code GET /v0/admin/repair}), asked of every ready member at most every
 * {@link #steadyInterval()} (30 s), or every poll interval while one rebuilds or did not answer, or at once when
 * the pods changed (a replaced member starts rebuilding): repair status moves slowly, and a reconcile should not wait
 * on the members each time an event comes.
 */
final class RepairPolls {
    /** How often a steady cluster's repair status is refreshed, in busy intervals (2 s in production: 30 s). */
    static final int STEADY_FACTOR = 15;

    private record Last(Instant at, String pods, Map<Member, MemberRepair> reports) {}

    private final MemberAdmin admin;
    private final Duration busyInterval;
    private final Map<String, Last> last = new ConcurrentHashMap<>();

    RepairPolls(MemberAdmin admin, Duration busyInterval) {
        this.admin = admin;
        this.busyInterval = busyInterval;
    }

    Duration steadyInterval() {
        return busyInterval.multipliedBy(STEADY_FACTOR);
    }

    /** A cluster's ready members' admin URLs, and a key that changes when its pods do. */
    record ReadyMembers(String cluster, Map<Member, String> urls, String podKey) {
        static ReadyMembers of(DhtCluster cluster, Collection<Pod> pods, Function<Member, String> adminUrl) {
            var ready = new TreeMap<Member, String>();
            var uids = new TreeMap<Member, String>();
            for (Pod pod : pods) {
                if (PodReadiness.isReady(pod)) {
                    Names.member(
                                    cluster.getMetadata().getName(),
                                    pod.getMetadata().getName())
                            .ifPresent(member -> {
                                ready.put(member, adminUrl.apply(member));
                                uids.put(member, pod.getMetadata().getUid());
                            });
                }
            }
            var podKey = new StringBuilder();
            uids.forEach((member, uid) ->
                    podKey.append(member).append(':').append(uid).append(','));
            return new ReadyMembers(
                    cluster.getMetadata().getNamespace() + "/"
                            + cluster.getMetadata().getName(),
                    ready,
                    podKey.toString());
        }
    }

    /** @param credentials what the operator presents on the cluster's client port (token, TLS) */
    Map<Member, MemberRepair> reports(
            DhtCluster cluster,
            Collection<Pod> pods,
            Function<Member, String> adminUrl,
            dev.dht.operator.nodeadmin.NodeCredentials credentials,
            Instant now) {
        var members = ReadyMembers.of(cluster, pods, adminUrl);
        String key = members.cluster();
        var ready = members.urls();
        var podKey = members.podKey();
        Last l = last.get(key);
        // Asked again soon while one rebuilds, or did not answer (a replaced member's new pod: a rebuild of a few
        // seconds would otherwise go unseen until the steady poll).
        boolean busy = l != null && l.reports().values().stream().anyMatch(r -> r.rebuilding() || !r.known());
        Duration every = busy ? busyInterval : steadyInterval();
        if (l != null && l.pods().equals(podKey) && l.at().plus(every).isAfter(now)) {
            return l.reports();
        }
        Map<Member, MemberRepair> reports = new LinkedHashMap<>();
        if (!ready.isEmpty()) {
            reports.putAll(admin.authenticated(credentials).repairs(ready));
        }
        if (l != null) { // a rebuilding member that did not answer stays rebuilding until it says otherwise
            reports.replaceAll((member, r) -> r.carryingRebuildOf(l.reports().get(member)));
        }
        last.put(key, new Last(now, podKey, reports));
        return reports;
    }
}
