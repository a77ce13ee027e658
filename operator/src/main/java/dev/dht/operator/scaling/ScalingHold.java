package dev.dht.operator.scaling;

import dev.dht.operator.api.v1alpha1.BackupPhase;
import dev.dht.operator.api.v1alpha1.DhtBackup;
import dev.dht.operator.api.v1alpha1.RestorePhase;
import dev.dht.operator.api.v1alpha1.RestoreStatus;
import dev.dht.operator.api.v1alpha1.ScalingStep;
import java.util.Collection;
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

    /**
     * Why the member list must not change now: a restore not done yet, or a backup of this cluster running.
     *
     * @param restore the cluster's restore status (spec.restoreFrom), if any
     * @param backups the DhtBackups naming the cluster
     */
    public static Optional<Refusal> reason(Optional<RestoreStatus> restore, Collection<DhtBackup> backups) {
        if (restore.isPresent() && restore.get().phase != RestorePhase.Completed) {
            return Optional.of(new Refusal(
                    RESTORE_REASON,
                    "spec.replicas is held while the cluster restores"
                            + " backup " + restore.get().backupId
                            + " (records are placed by the member list the restore started"
                            + " with); the scale runs once the restore is done"));
        }
        return backups.stream()
                .filter(b -> b.getStatus() != null && b.getStatus().phase == BackupPhase.Running)
                .findFirst()
                .map(b -> new Refusal(
                        BACKUP_REASON,
                        "spec.replicas is held while DhtBackup "
                                + b.getMetadata().getName()
                                + " runs (a record moved between two members' checkpoints could be in"
                                + " neither); the scale runs once the backup ends"));
    }

    /** The held decision and the refusal that explains it. */
    public record Held(ScaleDecision decision, Optional<Refusal> refusal) {}

    /**
     * @param decision    what the scaling plan would do
     * @param observation what runs now
     * @param hold        the reason to hold (a Refusal), when a backup or restore runs
     */
    public static Held apply(ScaleDecision decision, ScaleObservation observation, Optional<Refusal> hold) {
        if (hold.isEmpty()
                || observation.statefulSetReplicas().isEmpty()
                || observation.topology().isEmpty()) {
            return new Held(decision, Optional.empty());
        }
        var replicas = observation.statefulSetReplicas().get();
        var members = observation.topologyMembers();
        boolean changes = !decision.statefulSetReplicas().equals(replicas)
                || !decision.topologyMembers().equals(members);
        if (!changes) {
            return new Held(decision, Optional.empty());
        }
        return new Held(
                new ScaleDecision(
                        replicas,
                        members,
                        members,
                        observation.settled(),
                        Optional.of(ScalingStep.Held),
                        List.of(),
                        decision.reports()),
                hold);
    }
}
