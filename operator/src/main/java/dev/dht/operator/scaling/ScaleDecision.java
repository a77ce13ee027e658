package dev.dht.operator.scaling;

import dev.dht.operator.api.v1alpha1.ScalingStep;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The next step of a scale: the StatefulSet's replicas and the number of members the topology lists after this
 * reconcile (at most one of the two changes), and what the cluster then waits for.
 *
 * @param statefulSetReplicas replicas to apply to the StatefulSet
 * @param topologyMembers     members to list in the topology ConfigMap (ordinals 0..n-1)
 * @param settled             the topology in force after this reconcile is settled: no data move is pending on it
 * @param step                what the scale is doing; empty when no scale is in progress (steady)
 * @param leaving             ordinals that run but are no longer in the topology, handing over their data
 * @param reports             the members' movement reports this decision used, by ordinal (empty if none polled)
 */
public record ScaleDecision(int statefulSetReplicas, int topologyMembers, boolean settled,
    Optional<ScalingStep> step, List<Integer> leaving, Map<Integer, MemberMovement> reports) {

  public ScaleDecision {
    leaving = List.copyOf(leaving);
    reports = Map.copyOf(reports);
  }

  /** No scale in progress: the StatefulSet, the topology and the members agree with the spec. */
  public boolean steady() {
    return step.isEmpty();
  }

  /**
   * The member list stays as it is: no scale runs, or one is held (by a backup or a restore) with the StatefulSet
   * and the topology at the same count. A held scale is not steady, yet a restore must go on under it: it is
   * what releases the hold.
   */
  public boolean membersFixed() {
    return steady() || (step.equals(Optional.of(ScalingStep.Held)) && statefulSetReplicas == topologyMembers);
  }
}
