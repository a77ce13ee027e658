package dev.dht.node.http;

/**
 * Serves /v0/entity: first {@link #tryInline} on the selector thread, and {@link #handle} on a worker for what that
 * declines. It answers through the responder, now or later from another thread. The standalone node answers from
 * local storage; the cluster coordinator implements this same interface.
 */
public interface EntityHandler {
    /** On a worker: may wait for local storage (never for the network). */
    void handle(EntityRequest request, Responder responder);

    /**
     * Whether the request is coordinated: started by {@link #tryInline} and answered later from another thread (when
     * the replicas answered). Such requests are not queued, so the server bounds how many are in flight instead.
     */
    default boolean coordinates(EntityRequest request) {
        return false;
    }

    /**
     * Serves the request on the selector thread that parsed it if that needs no waiting (the record is in memory,
     * the write would not stall), and returns true; otherwise returns false having done and answered nothing, and
     * the request goes to a worker ({@link #handle}). Having returned true it may still answer later (at the end
     * of the selector pass), or hand the request to a worker then ({@link InlineResponder#toWorker}). Saves the
     * worker hand-off on the common path without ever letting a selector wait for the disk.
     */
    default boolean tryInline(EntityRequest request, InlineResponder responder) {
        return false;
    }
}
