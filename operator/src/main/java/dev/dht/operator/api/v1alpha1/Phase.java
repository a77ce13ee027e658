package dev.dht.operator.api.v1alpha1;

/** One-word summary of a cluster's state (the conditions carry the detail). */
public enum Phase {
    /** First rollout: not every member has been ready yet. */
    Creating,
    /** Every member is ready and runs the current pod template. */
    Ready,
    /** The member count is changing: pods starting, the topology changing, data moving, or a member leaving. */
    Scaling,
    /** A rolling update (new pod template) is in progress. */
    Updating,
    /** The rollout is complete but some members are not ready. */
    Degraded,
    /** The operator could not apply the desired state (see the Ready condition's message). */
    Failed,
    /** Made from a backup: the members restore it and serve no client until it is done (status.restore). */
    Restoring
}
