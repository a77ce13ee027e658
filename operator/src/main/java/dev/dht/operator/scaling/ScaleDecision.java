package dev.dht.operator.scaling;

import dev.dht.operator.api.v1alpha1.ScalingStep;
import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Member;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The next step of a scale: each rack's StatefulSet replicas and the members each rack has in the topology after this
 * reconcile (at most one of the two changes), and what the cluster then waits for.
 *
 * @param statefulSetReplicas replicas to apply to each rack's StatefulSet
 * @param topologyMembers     members to list in the topology ConfigMap (each rack's ordinals 0..n-1)
 * @param target              where the scale (or a rack's drain) ends: each rack's members then
 * @param settled             the topology in force after this reconcile is settled: no data move is pending on it
 * @param step                what the scale is doing; empty when no scale is in progress (steady)
 * @param leaving             members that run but are no longer in the topology, handing over their data
 * @param reports             the members' movement reports this decision used (empty if none polled)
 */
public record ScaleDecision(
        Layout statefulSetReplicas,
        Layout topologyMembers,
        Layout target,
        boolean settled,
        Optional<ScalingStep> step,
        List<Member> leaving,
        Map<Member, MemberMovement> reports) {

    public ScaleDecision {
        leaving = List.copyOf(leaving);
        reports = Map.copyOf(reports);
    }

    /** A steady cluster at this layout. */
    public static ScaleDecision steady(Layout layout, Map<Member, MemberMovement> reports) {
        return new ScaleDecision(layout, layout, layout, true, Optional.empty(), List.of(), reports);
    }

    /** No scale in progress: the StatefulSets, the topology and the members agree with the spec. */
    public boolean steady() {
        return step.isEmpty();
    }

    /**
     * The member list stays as it is: no scale runs, or one is held (by a backup or a restore) with the StatefulSets
     * and the topology at the same counts. A held scale is not steady, yet a restore must go on under it: it is
     * what releases the hold.
     */
    public boolean membersFixed() {
        return steady() || (step.equals(Optional.of(ScalingStep.Held)) && statefulSetReplicas.equals(topologyMembers));
    }
}
