package dev.dht.operator.api.v1alpha1;

/** Where a cluster's restore is (status.restore.phase). */
public enum RestorePhase {
    /** Waiting for every member to be ready (and the backup to be found). */
    Pending,
    /** The members download their share of the backup and send its records to their owners. */
    Running,
    /** Every share is sent and every member serves clients. */
    Completed,
    /** The backup cannot be restored (the message says why); no member serves clients. */
    Failed
}
