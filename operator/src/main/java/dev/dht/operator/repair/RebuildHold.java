package dev.dht.operator.repair;

import dev.dht.operator.model.Member;
import dev.dht.operator.scaling.Refusal;
import dev.dht.operator.scaling.ScaleObservation;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Scaling waits while a member rebuilds: a move needs every member to stream what it holds, and a rebuilding one
 * holds only part of its ranges (and would pull them again on the new member set). A scale that has not started
 * is held back, shown as the Refused condition; one already moving data goes on (its members finish it).
 */
public final class RebuildHold {
    private RebuildHold() {}

    /** What to decide the scaling step on, and the refusal to show when the spec's replicas are held back. */
    public record Held(ScaleObservation observation, Optional<Refusal> refusal) {}

    public static Held apply(String cluster, ScaleObservation o, Map<Member, MemberRepair.Rebuild> rebuilding) {
        // not started yet: the topology settled, the StatefulSets as large as the topology, the spec different
        var members = o.topologyMembers();
        boolean starting = o.topology().isPresent()
                && o.settled()
                && o.statefulSetReplicas().isPresent()
                && o.statefulSetReplicas().get().equals(members)
                && !members.target(o.target(), o.drained()).equals(members);
        if (rebuilding.isEmpty() || !starting) {
            return new Held(o, Optional.empty());
        }
        String who = rebuilding.entrySet().stream()
                .map(e -> e.getKey().pod(cluster) + " (" + e.getValue().describe() + ")")
                .collect(Collectors.joining(", "));
        return new Held(
                o.holdingStill(),
                Optional.of(new Refusal(
                        "MemberRebuilding",
                        "spec.replicas " + o.target()
                                + " (and the racks' drains) is held back at " + members.total() + " members while "
                                + who
                                + " rebuilds: scaling starts once it is done")));
    }
}
