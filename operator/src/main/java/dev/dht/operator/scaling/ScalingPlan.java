package dev.dht.operator.scaling;

import dev.dht.operator.api.v1alpha1.ScalingStep;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * The scaling state machine: from what is observed (spec, StatefulSet, topology ConfigMap, pods, the members'
 * movement reports) to the next step. Pure; the reconciler does the I/O. Every step is derived from the observed
 * state, so an operator restarted half-way continues where the cluster is:
 *
 * <pre>
 * scale-up   (target n &gt; topology m): StatefulSet grows to n -&gt; pods m..n-1 ready -&gt; topology lists n
 *                                      -&gt; every member idle on it (settled)
 * scale-down (target n &lt; topology m): topology drops member m-1 -&gt; every member and the leaving one idle on
 *                                      it (settled) -&gt; StatefulSet shrinks to m-1 -&gt; repeat until n
 * </pre>
 *
 * Two moves never overlap from the operator's side for a scale-down (one member at a time, each after the previous
 * one settled); a scale-up may extend a topology whose move is still running, which the nodes queue (a new list
 * waits for the move in progress). A topology change waits for a pod-template rollout to finish, so that members
 * never change their settings (the replication factor above all) in the middle of a move.
 */
public final class ScalingPlan {
  private ScalingPlan() {}

  /**
   * The ordinals whose movement the decision needs: none while the topology is settled; otherwise every member of
   * the topology, and every ready pod beyond it (a leaving member, or a new one not listed yet, which reports idle
   * on the current list as soon as it has learned it).
   */
  public static List<Integer> toPoll(ScaleObservation o) {
    if (o.topology().isEmpty() || o.statefulSetReplicas().isEmpty() || o.settled()) {
      return List.of();
    }
    var out = new ArrayList<Integer>();
    int m = o.members();
    IntStream.range(0, m).forEach(out::add);
    IntStream.range(m, o.replicas()).filter(o::ready).forEach(out::add);
    return out;
  }

  /**
   * Whether the live topology's move is done: every member idle on it; every ready pod beyond it idle on it too,
   * no longer a member and, when its volume is kept, cleaned up (a member that comes back later must not bring
   * back records it no longer owned). A pod beyond the topology that is not ready is not waited for: the members
   * report idle only once every member of the move has done its part, so it holds nothing they still need.
   */
  static boolean settledBy(ScaleObservation o, Map<Integer, MemberMovement> reports) {
    List<String> list = o.topology().orElseThrow();
    List<Integer> polled = toPoll(o);
    if (polled.isEmpty()) {
      return false;
    }
    for (int i : polled) {
      MemberMovement report = reports.get(i);
      if (report == null || !report.idleOn(list)) {
        return false;
      }
      if (i >= list.size() && (report.member() || o.retainOnScaleDown() && !report.cleanedUp())) {
        return false;
      }
    }
    return true;
  }

  public static ScaleDecision decide(ScaleObservation o, Map<Integer, MemberMovement> reports) {
    int n = o.target();
    if (o.statefulSetReplicas().isEmpty()) {
      // Nothing runs, so nothing has to move: the (re)created StatefulSet starts with every member listed.
      return new ScaleDecision(n, n, true, Optional.empty(), List.of(), Map.of());
    }
    int r = o.replicas();
    if (o.topology().isEmpty()) {
      // Pods run without their topology ConfigMap (deleted by hand): list the pods there are; the members confirm.
      int m = r > 0 ? r : n;
      return decision(o, Math.max(r, m), m, false, ScalingStep.MovingData, reports);
    }
    int m = o.members();
    boolean settled = o.settled() || settledBy(o, reports);
    if (n > m) {
      int replicas = Math.max(r, n);
      boolean started = r >= n && IntStream.range(m, n).allMatch(o::ready);
      if (!started) {
        return decision(o, replicas, m, settled, ScalingStep.StartingMembers, reports);
      }
      if (!o.rolloutComplete()) {
        return decision(o, replicas, m, settled, ScalingStep.WaitingForRollout, reports);
      }
      return decision(o, replicas, n, false, ScalingStep.MovingData, reports);
    }
    if (!settled) {
      return decision(o, Math.max(r, m), m, false, ScalingStep.MovingData, reports);
    }
    if (r > m) {
      // Every pod beyond the topology has handed over its data.
      return decision(o, m, m, true, ScalingStep.RemovingMember, reports);
    }
    if (r < m) {
      // Members without a pod (the StatefulSet was shrunk behind the operator's back): bring them back.
      return decision(o, m, m, true, ScalingStep.StartingMembers, reports);
    }
    if (n < m) {
      if (!o.rolloutComplete()) {
        return decision(o, r, m, true, ScalingStep.WaitingForRollout, reports);
      }
      // The highest ordinal leaves the topology; its pod stays until the move is done.
      return decision(o, r, m - 1, false, ScalingStep.MovingData, reports);
    }
    return new ScaleDecision(m, m, true, Optional.empty(), List.of(), reports);
  }

  private static ScaleDecision decision(ScaleObservation o, int replicas, int members, boolean settled,
      ScalingStep step, Map<Integer, MemberMovement> reports) {
    // Pods that run (or are being removed) beyond the topology and beyond the spec.
    var leaving = IntStream.range(Math.max(members, o.target()), Math.max(replicas, o.replicas())).boxed().toList();
    return new ScaleDecision(replicas, members, settled, Optional.of(step), leaving, reports);
  }
}
