package dev.dht.operator.api.v1alpha1;

/** Where a backup is (status.phase of a DhtBackup). */
public enum BackupPhase {
    /** Waiting to start: for the cluster to be Ready and settled, or for another backup of it to end. */
    Pending,
    /** The start point is fixed; the members take their checkpoints and upload them. */
    Running,
    /** Every member's part is stored and the manifest written: the backup can be restored. */
    Completed,
    /** A member failed for good (the message says which and why); nothing is marked complete. */
    Failed
}
