package dev.dht.operator.scaling;

import dev.dht.operator.api.v1alpha1.ScalingStep;
import java.util.List;
import java.util.Optional;

/**
 * No member list change while a backup runs or a restore fills the cluster (pure): a record moved between two
 * members' checkpoints could be in neither, and a restore places records by the ring it started with. A scale asked
 * for meanwhile is held (step Held, condition Refused with the reason) and runs once the backup or restore ends.
 */
public final class ScalingHold {
  public static final String BACKUP_REASON = "ScalingHeldByBackup";
  public static final String RESTORE_REASON = "ScalingHeldByRestore";

  private ScalingHold() {}

  /** The held decision and the refusal that explains it. */
  public record Held(ScaleDecision decision, Optional<Refusal> refusal) {}

  /**
   * @param decision    what the scaling plan would do
   * @param observation what runs now
   * @param hold        the reason to hold (a Refusal), when a backup or restore runs
   */
  public static Held apply(ScaleDecision decision, ScaleObservation observation, Optional<Refusal> hold) {
    if (hold.isEmpty() || observation.statefulSetReplicas().isEmpty() || observation.topology().isEmpty()) {
      return new Held(decision, Optional.empty());
    }
    var replicas = observation.statefulSetReplicas().get();
    var members = observation.topologyMembers();
    boolean changes = !decision.statefulSetReplicas().equals(replicas) || !decision.topologyMembers().equals(members);
    if (!changes) {
      return new Held(decision, Optional.empty());
    }
    return new Held(new ScaleDecision(replicas, members, members, observation.settled(),
        Optional.of(ScalingStep.Held), List.of(), decision.reports()), hold);
  }
}
