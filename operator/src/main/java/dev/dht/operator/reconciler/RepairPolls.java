package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
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
import java.util.function.IntFunction;

/**
 * The members' repair reports ({@code GET /v0/admin/repair}), asked of every ready member at most every
 * {@link #steadyInterval()} (30 s), or every poll interval while one rebuilds or did not answer, or at once when
 * the pods changed (a replaced member starts rebuilding): repair status moves slowly, and a reconcile should not wait
 * on the members each time an event comes.
 */
final class RepairPolls {
  /** How often a steady cluster's repair status is refreshed, in busy intervals (2 s in production: 30 s). */
  static final int STEADY_FACTOR = 15;

  private record Last(Instant at, String pods, Map<Integer, MemberRepair> reports) {}

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

  /** @param credentials what the operator presents on the cluster's client port (token, TLS) */
  Map<Integer, MemberRepair> reports(DhtCluster cluster, Collection<Pod> pods, IntFunction<String> adminUrl,
      dev.dht.operator.nodeadmin.NodeCredentials credentials, Instant now) {
    String key = cluster.getMetadata().getNamespace() + "/" + cluster.getMetadata().getName();
    var ready = new TreeMap<Integer, String>();
    var podKey = new StringBuilder();
    String prefix = Names.statefulSet(cluster.getMetadata().getName()) + "-";
    for (Pod pod : pods) {
      String name = pod.getMetadata().getName();
      if (name.startsWith(prefix) && PodReadiness.isReady(pod)) {
        try {
          int ordinal = Integer.parseInt(name.substring(prefix.length()));
          ready.put(ordinal, adminUrl.apply(ordinal));
          podKey.append(ordinal).append(':').append(pod.getMetadata().getUid()).append(',');
        } catch (NumberFormatException ignored) {
          // not one of this cluster's members
        }
      }
    }
    Last l = last.get(key);
    // Asked again soon while one rebuilds, or did not answer (a replaced member's new pod: a rebuild of a few
    // seconds would otherwise go unseen until the steady poll).
    boolean busy = l != null && l.reports().values().stream().anyMatch(r -> r.rebuilding() || !r.known());
    Duration every = busy ? busyInterval : steadyInterval();
    if (l != null && l.pods().equals(podKey.toString()) && l.at().plus(every).isAfter(now)) {
      return l.reports();
    }
    Map<Integer, MemberRepair> reports = ready.isEmpty() ? Map.of()
        : new LinkedHashMap<>(admin.authenticated(credentials).repairs(ready));
    last.put(key, new Last(now, podKey.toString(), reports));
    return reports;
  }
}
