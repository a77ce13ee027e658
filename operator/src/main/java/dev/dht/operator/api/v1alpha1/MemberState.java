package dev.dht.operator.api.v1alpha1;

/**
 * A member's place in the topology's life cycle: Joining (its pod is starting, or it is new in the topology and
 * the data move to it is not done), Up, Rebuilding (its volume was lost, or it was down longer than the tombstone
 * grace: it pulls its ranges from the other replicas and serves no read until done), Draining (removed from the
 * topology by a scale-down, handing over its data; its pod stays until the move is done).
 */
public enum MemberState {
    Joining,
    Up,
    Rebuilding,
    Draining
}
