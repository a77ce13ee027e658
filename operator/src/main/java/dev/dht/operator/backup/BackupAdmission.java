package dev.dht.operator.backup;

import dev.dht.operator.api.v1alpha1.Phase;
import java.util.Optional;

/**
 * Whether a Pending backup may fix its start point now (pure). A backup needs a Ready cluster with a settled
 * topology (a record moved between two members' checkpoints could be in neither) and no other backup of the same
 * cluster running; the cluster then holds scaling until it ends.
 */
public final class BackupAdmission {
    private BackupAdmission() {}

    public enum Verdict {
        START,
        WAIT,
        FAIL
    }

    public record Decision(Verdict verdict, String message) {}

    /**
     * @param cluster      the cluster's spec and status
     * @param clusterName  its name, for messages
     * @param otherRunning another backup of this cluster that is Running, if any
     */
    public static Decision decide(ClusterView cluster, String clusterName, Optional<String> otherRunning) {
        if (!cluster.exists()) {
            return new Decision(Verdict.WAIT, "waiting for DhtCluster " + clusterName + " (it does not exist)");
        }
        if (!cluster.backupConfigured()) {
            return new Decision(
                    Verdict.FAIL,
                    "DhtCluster " + clusterName + " has no spec.backup.storage: say where its"
                            + " backups go, then create the DhtBackup again");
        }
        if (otherRunning.isPresent()) {
            return new Decision(
                    Verdict.WAIT,
                    "waiting for backup " + otherRunning.get() + " of " + clusterName
                            + " to end (one backup of a cluster at a time)");
        }
        if (cluster.restoring()) {
            return new Decision(Verdict.WAIT, "waiting: " + clusterName + " is restoring a backup");
        }
        if (cluster.phase() != Phase.Ready
                || !cluster.settled()
                || cluster.memberPods().isEmpty()) {
            return new Decision(
                    Verdict.WAIT,
                    "waiting for " + clusterName + " to be Ready with a settled topology"
                            + " (now " + cluster.phase() + (cluster.settled() ? "" : ", data moving")
                            + "): a backup takes every"
                            + " member's checkpoint on the same member list");
        }
        return new Decision(Verdict.START, "starting: every member takes a checkpoint and uploads it");
    }
}
