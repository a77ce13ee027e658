package dev.dht.node.movement;

import dev.dht.node.ring.Ring;

/**
 * The scale simulation's door to {@link MovePlan}, which is package-private in the node: this class sits in the
 * same package but in the bench module, so the simulation runs the node's own plan and the node exposes nothing
 * for it.
 */
public final class MovePlans {
    private final MovePlan plan;

    private MovePlans(MovePlan plan) {
        this.plan = plan;
    }

    /** The plan of one sending member of S for a move from s to t at factor rfT in T. */
    public static MovePlans of(Ring s, Ring t, int rfT, String sender) {
        return new MovePlans(new MovePlan(s, t, rfT, sender));
    }

    /** The T member indexes the record with this key goes to, into out; returns how many. */
    public int targets(byte[] key, int[] out) {
        return plan.targets(key, out);
    }

    /** The same for a key hash. */
    public int targets(long keyHash, int[] out) {
        return plan.targets(keyHash, out);
    }
}
