package dev.dht.operator.api.v1alpha1;

/** What a scale in progress is doing or waiting for (status.scaling.step). */
public enum ScalingStep {
    /** The StatefulSet has grown; the new members enter the topology once their pods are ready. */
    StartingMembers,
    /** The topology changed; every member (and a leaving one) has to report its data move done. */
    MovingData,
    /** A member has handed over its data: the StatefulSet shrinks by one; the next member leaves after that. */
    RemovingMember,
    /** A pod-template rollout runs: the topology changes again once it is done (one disruption at a time). */
    WaitingForRollout,
    /** A backup runs, or the cluster restores one: the member list stays as it is until that is done. */
    Held
}
