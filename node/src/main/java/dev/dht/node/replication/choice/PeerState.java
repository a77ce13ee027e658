package dev.dht.node.replication.choice;

/** How a peer has been answering lately; reads prefer the earlier states (docs/cluster.md, "Choosing replicas"). */
public enum PeerState {
    /** Answering as usual. */
    RESPONSIVE,
    /**
     * Answering, but late: it owes an answer for longer than its backup delay, or its median answer time is well
     * above the fastest peer's. Reads ask it only when the responsive replicas are not enough.
     */
    SLOW,
    /**
     * Not answering: silent while owing answers for longer than {@link ReplicaChoice#avoidAfterNanos}, or
     * {@link PeerHealth#FAILURES_TO_AVOID} failures in a row (refused, reset, timed out, 5xx). Reads ask it last;
     * one read now and then also asks it (a probe), and its first answer makes it responsive again.
     */
    AVOIDED;

    /** The label value in metrics. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
