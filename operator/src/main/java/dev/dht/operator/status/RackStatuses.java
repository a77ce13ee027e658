package dev.dht.operator.status;

import dev.dht.operator.api.v1alpha1.MemberStatus;
import dev.dht.operator.api.v1alpha1.RackStatus;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Layout;
import dev.dht.operator.scaling.ScaleDecision;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/** The racks in the status: members and ready members per rack, and the FailureDomains condition (pure). */
public final class RackStatuses {
    public static final String BALANCED = "RacksBalanced";
    public static final String FEWER_RACKS = "FewerRacksThanReplicationFactor";
    public static final String RACK_EMPTY = "RackEmpty";
    public static final String UNBALANCED = "RacksUnbalanced";

    private RackStatuses() {}

    public static List<RackStatus> of(ClusterModel model, ScaleDecision scaling, List<MemberStatus> members) {
        return model.rackNames().stream()
                .map(rack -> {
                    int listed = scaling.topologyMembers().get(rack);
                    int ready = (int) members.stream()
                            .filter(m ->
                                    rack.equals(m.rack) && Boolean.TRUE.equals(m.ready) && ordinal(m.name) < listed)
                            .count();
                    return new RackStatus(
                            rack,
                            listed,
                            scaling.statefulSetReplicas().get(rack),
                            ready,
                            scaling.target().get(rack));
                })
                .toList();
    }

    /** "zone-a 3/3, zone-b 3/3, zone-c 2/3": ready members of the members each rack has in the topology. */
    public static String summary(List<RackStatus> racks) {
        return racks.stream()
                .map(r -> r.name + " " + r.readyMembers + "/" + r.members)
                .collect(Collectors.joining(", "));
    }

    /**
     * True when losing any one rack leaves a copy of every key: at least as many racks hold members as each key has
     * copies, none of the racks meant to hold members is empty, and they differ by at most one member (a smaller rack's
     * members each hold a larger share: docs/placement.md). Without racks every member is its own failure domain;
     * the reason then says whether two members may share a Kubernetes node.
     *
     * @param members each rack's members in the topology
     */
    public static Condition failureDomains(
            List<Condition> previous, ClusterModel model, Layout members, Long generation, Instant now) {
        if (!model.hasRacks()) {
            String reason = switch (model.placement()) {
                case ONE_PER_NODE -> "OneMemberPerNode";
                case SHARED -> "MultiplePerNodeAllowed";
                case KEPT -> "PlacementKept";
            };
            String message = switch (model.placement()) {
                case ONE_PER_NODE ->
                    "no racks: every member is its own failure domain, one member per Kubernetes node,"
                            + " spread over zones where the nodes have zone labels";
                case SHARED ->
                    "no racks; spec.allowMultiplePerNode: members may share a Kubernetes node, whose loss then"
                            + " takes several copies of some keys";
                case KEPT ->
                    "no racks; this cluster was made before one member per Kubernetes node was the default and"
                            + " keeps its placement (members only prefer distinct nodes): set spec.allowMultiplePerNode to false to"
                            + " require it (every member restarts once), or to true to keep this and silence the notice";
            };
            return Conditions.condition(previous, Conditions.FAILURE_DOMAINS, true, reason, message, generation, now);
        }
        var drained = model.drainedRacks();
        var empty = model.rackNames().stream()
                .filter(r -> !drained.contains(r) && members.get(r) == 0)
                .toList();
        long holding =
                model.rackNames().stream().filter(r -> members.get(r) > 0).count();
        int copies = model.effectiveReplicationFactor();
        String layout =
                model.rackNames().stream().map(r -> r + " " + members.get(r)).collect(Collectors.joining(", "));
        String reason;
        String message;
        if (!empty.isEmpty()) {
            reason = RACK_EMPTY;
            message = "rack " + String.join(", ", empty) + " holds no member (" + layout + "): its zone holds no copy;"
                    + " raise spec.replicas so that it gets members, or drain and remove it";
        } else if (holding < copies) {
            reason = FEWER_RACKS;
            message = holding + " racks hold members but each key has " + copies + " copies, so some keys have two in"
                    + " one rack and losing that rack loses both: append racks until there are " + copies;
        } else if (members.spread(drained) > 1) {
            reason = UNBALANCED;
            message = "racks differ by more than one member (" + layout + "): the members of the smaller racks each"
                    + " hold a larger share of the data (docs/placement.md); set spec.replicas to a multiple of the number"
                    + " of racks, scaling up fills the smallest racks first";
        } else {
            reason = BALANCED;
            message = holding + " racks hold members (" + layout + "), at least as many as the " + copies
                    + " copies of each key: losing one rack leaves every key a copy";
        }
        boolean ok = Objects.equals(reason, BALANCED);
        return Conditions.condition(previous, Conditions.FAILURE_DOMAINS, ok, reason, message, generation, now);
    }

    private static int ordinal(String pod) {
        return Integer.parseInt(pod.substring(pod.lastIndexOf('-') + 1));
    }
}
