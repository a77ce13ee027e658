package dev.dht.operator.scaling;

import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.InvalidSpecException;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Member;
import dev.dht.operator.model.Names;
import dev.dht.operator.model.Topology;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A rack leaves spec.racks only once drained and empty (pure). The schema refuses the rest when it can see it (the
 * stored status); this is the second line, for what only the live objects show: members of a rack the spec no longer
 * names, or of the implicit rack in a cluster that now names racks (or the other way round). Building the spec's
 * topology would drop them all in one move, so nothing is applied and the status says what to do.
 */
public final class RackRemoval {
    private RackRemoval() {}

    /**
     * @param statefulSets every StatefulSet the cluster owns
     * @throws InvalidSpecException naming the racks that still hold members or pods, and what to do
     */
    public static void check(ClusterModel model, Optional<ConfigMap> topology, Collection<StatefulSet> statefulSets) {
        var racks = model.rackNames();
        var holding = new TreeMap<String, Integer>();
        for (Member member : topology.map(t -> Topology.parse(model.name(), t)).orElse(java.util.List.of())) {
            if (!racks.contains(member.rack())) {
                holding.merge(member.rack(), 1, Integer::sum);
            }
        }
        var running = new TreeMap<String, Integer>();
        for (StatefulSet sts : statefulSets) {
            var labels = sts.getMetadata().getLabels();
            String rack = labels == null ? "" : labels.getOrDefault(Labels.RACK, "");
            int replicas =
                    sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
            boolean ours = sts.getMetadata().getName().equals(Names.statefulSet(model.name(), rack));
            if (ours && !racks.contains(rack) && replicas > 0) {
                running.put(rack, replicas);
            }
        }
        if (holding.isEmpty() && running.isEmpty()) {
            return;
        }
        var which = new TreeMap<String, String>();
        holding.forEach((rack, n) -> which.put(rack, n + " members in the topology"));
        running.forEach((rack, n) -> which.merge(rack, n + " pods", (a, b) -> a + " and " + b));
        throw new InvalidSpecException(describe(model, which));
    }

    private static String describe(ClusterModel model, Map<String, String> which) {
        var out = new StringBuilder();
        which.forEach((rack, what) -> out.append(out.isEmpty() ? "" : "; ")
                .append(rack.isEmpty() ? "the cluster's members without a rack" : "rack " + rack)
                .append(" still has ")
                .append(what));
        if (which.containsKey("") || model.rackNames().contains("")) {
            return out + ": racks can only be given when a cluster is created, and never all removed; restore the"
                    + " spec.racks the cluster was made with (to move onto racks, restore a backup into a new DhtCluster)";
        }
        return out
                + ": a rack leaves spec.racks only once drained; put it back at its place with drain: true, wait until"
                + " status.racks shows it holds no member and runs no pod, then remove it";
    }
}
