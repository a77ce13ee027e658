package dev.dht.operator.scaling;

import dev.dht.operator.api.v1alpha1.ScalingStep;
import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * The scaling state machine: from what is observed (spec, StatefulSets, topology ConfigMap, pods, the members'
 * movement reports) to the next step. Pure; the reconciler does the I/O. Every step is derived from the observed
 * state, so an operator restarted half-way continues where the cluster is. Members are counted per rack; where the
 * members end up is {@link Layout#target} (new ones to the racks with the fewest first, drained racks emptied):
 *
 * <pre>
 * scale-up   (a rack below its target): the growing racks' StatefulSets grow -&gt; their new pods ready -&gt; the
 *                                       topology lists them -&gt; every member idle on it (settled)
 * scale-down (a rack above its target): the topology drops one member, the highest ordinal of the rack furthest
 *                                       above its share -&gt; every member and the leaving one idle on it (settled)
 *                                       -&gt; its StatefulSet shrinks -&gt; repeat
 * </pre>
 *
 * A drain with an unchanged total does both: the other racks grow first, then the drained rack's members leave.
 * Two moves never overlap from the operator's side for a scale-down (one member at a time, each after the previous
 * one settled); a scale-up may extend a topology whose move is still running, which the nodes queue (a new list
 * waits for the move in progress). A topology change waits for a pod-template rollout to finish, so that members
 * never change their settings (the replication factor above all) in the middle of a move.
 */
public final class ScalingPlan {
    private ScalingPlan() {}

    /**
     * The members whose movement the decision needs: none while the topology is settled; otherwise every member of
     * the topology, and every ready pod beyond it (a leaving member, or a new one not listed yet, which reports idle
     * on the current list as soon as it has learned it).
     */
    public static List<Member> toPoll(ScaleObservation o) {
        if (o.topology().isEmpty() || o.statefulSetReplicas().isEmpty() || o.settled()) {
            return List.of();
        }
        var out = new ArrayList<>(o.topologyMembers().members());
        var running = o.statefulSetReplicas().get();
        for (String rack : running.racks()) {
            IntStream.range(o.topologyMembers().get(rack), running.get(rack))
                    .mapToObj(i -> new Member(rack, i))
                    .filter(o::ready)
                    .forEach(out::add);
        }
        return out;
    }

    /**
     * Whether the live topology's move is done: every member idle on it; every ready pod beyond it idle on it too,
     * no longer a member and, when its volume is kept, cleaned up (a member that comes back later must not bring
     * back records it no longer owned). A pod beyond the topology that is not ready is not waited for: the members
     * report idle only once every member of the move has done its part, so it holds nothing they still need.
     */
    static boolean settledBy(ScaleObservation o, Map<Member, MemberMovement> reports) {
        List<String> urls = o.topologyUrls();
        List<Member> polled = toPoll(o);
        if (polled.isEmpty()) {
            return false;
        }
        for (Member m : polled) {
            MemberMovement report = reports.get(m);
            if (report == null || !report.idleOn(urls)) {
                return false;
            }
            if (!o.topologyMembers().contains(m) && (report.member() || o.retainOnScaleDown() && !report.cleanedUp())) {
                return false;
            }
        }
        return true;
    }

    public static ScaleDecision decide(ScaleObservation o, Map<Member, MemberMovement> reports) {
        Layout m = o.topologyMembers();
        if (o.statefulSetReplicas().isEmpty()) {
            // Nothing runs, so nothing has to move: the (re)created StatefulSets start with every member listed.
            return ScaleDecision.steady(Layout.empty(m.racks()).target(o.target(), o.drained()), Map.of());
        }
        Layout r = o.statefulSetReplicas().get();
        if (o.topology().isEmpty()) {
            // Pods run without their topology ConfigMap (deleted by hand): list the pods there are; the members
            // confirm.
            var pods = r.total() > 0 ? r : Layout.empty(r.racks()).target(o.target(), o.drained());
            return decision(o, pods.max(r), pods, pods, false, ScalingStep.MovingData, reports);
        }
        Layout target = m.target(o.target(), o.drained());
        boolean settled = o.settled() || settledBy(o, reports);
        Layout grown = m.max(target);
        if (!grown.equals(m)) {
            Layout replicas = r.max(grown);
            boolean started = grown.racks().stream()
                    .allMatch(rack -> IntStream.range(m.get(rack), grown.get(rack))
                            .allMatch(i -> r.get(rack) > i && o.ready(new Member(rack, i))));
            if (!started) {
                return decision(o, replicas, m, target, settled, ScalingStep.StartingMembers, reports);
            }
            if (!o.rolloutComplete()) {
                return decision(o, replicas, m, target, settled, ScalingStep.WaitingForRollout, reports);
            }
            return decision(o, replicas, grown, target, false, ScalingStep.MovingData, reports);
        }
        if (!settled) {
            return decision(o, r.max(m), m, target, false, ScalingStep.MovingData, reports);
        }
        if (!r.equals(m)) {
            // Above the topology: every pod beyond it has handed over its data. Below: members without a pod (a
            // StatefulSet shrunk behind the operator's back) come back.
            boolean removing = r.racks().stream().anyMatch(rack -> r.get(rack) > m.get(rack));
            return decision(
                    o,
                    m,
                    m,
                    target,
                    true,
                    removing ? ScalingStep.RemovingMember : ScalingStep.StartingMembers,
                    reports);
        }
        Optional<String> shrinking = m.nextToLeave(target, o.drained());
        if (shrinking.isPresent()) {
            if (!o.rolloutComplete()) {
                return decision(o, r, m, target, true, ScalingStep.WaitingForRollout, reports);
            }
            // The rack's highest ordinal leaves the topology; its pod stays until the move is done.
            String rack = shrinking.get();
            return decision(o, r, m.with(rack, m.get(rack) - 1), target, false, ScalingStep.MovingData, reports);
        }
        return ScaleDecision.steady(m, reports);
    }

    private static ScaleDecision decision(
            ScaleObservation o,
            Layout replicas,
            Layout members,
            Layout target,
            boolean settled,
            ScalingStep step,
            Map<Member, MemberMovement> reports) {
        // Pods that run (or are being removed) beyond the topology and beyond the rack's target.
        var running = replicas.max(o.statefulSetReplicas().orElse(replicas));
        var leaving = new ArrayList<Member>();
        for (String rack : replicas.racks()) {
            IntStream.range(Math.max(members.get(rack), target.get(rack)), running.get(rack))
                    .forEach(i -> leaving.add(new Member(rack, i)));
        }
        return new ScaleDecision(replicas, members, target, settled, Optional.of(step), leaving, reports);
    }
}
