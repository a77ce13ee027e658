package dev.dht.operator.backup;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.MemberStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.RestorePhase;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a backup needs to know about its cluster, read from the DhtCluster's spec and status (pure).
 *
 * @param exists            the DhtCluster exists
 * @param backupConfigured  it has spec.backup.storage
 * @param phase             its phase (null before its first status)
 * @param settled           no scale runs and the members confirmed the topology (no data move pending)
 * @param restoring         it is being made from a backup and is not done
 * @param memberPods        the pods of the topology's members, by ordinal
 * @param memberUrls        their URLs, by ordinal
 */
public record ClusterView(
        boolean exists,
        boolean backupConfigured,
        Phase phase,
        boolean settled,
        boolean restoring,
        List<String> memberPods,
        List<String> memberUrls) {

    public static ClusterView of(Optional<DhtCluster> cluster) {
        if (cluster.isEmpty()) {
            return new ClusterView(false, false, null, false, false, List.of(), List.of());
        }
        var c = cluster.get();
        var spec = c.getSpec();
        var status = c.getStatus();
        boolean configured = spec != null && spec.backup != null && spec.backup.storage != null;
        if (status == null) {
            return new ClusterView(true, configured, null, false, false, List.of(), List.of());
        }
        boolean settled = status.scaling == null
                && status.topologyVersion != null
                && status.topologyVersion.equals(status.settledTopologyVersion);
        boolean restoring = status.restore != null && status.restore.phase != RestorePhase.Completed;
        var pods = new ArrayList<String>();
        var urls = new ArrayList<String>();
        if (status.members != null) {
            for (MemberStatus m : status.members) {
                if (m.state == MemberState.Up) {
                    pods.add(m.name);
                    urls.add(m.url);
                }
            }
        }
        return new ClusterView(true, configured, status.phase, settled, restoring, pods, urls);
    }
}
