package dev.dht.node.http;

/**
 * Serves /v0/entity. Runs on a worker thread and must not block on anything slow: it answers through the
 * responder, now or later from another thread. The standalone node answers from local storage; the cluster
 * coordinator implements this same interface.
 */
public interface EntityHandler {
    void handle(EntityRequest request, Responder responder);

    /**
     * Whether this request may run on the selector thread that parsed it instead of a worker: true only when its
     * work is a bounded, non-blocking step (at most one local store operation plus asynchronous sends).
     */
    default boolean runsInline(EntityRequest request) {
        return false;
    }

    /**
     * Serves the request on the selector thread that parsed it if that needs no waiting (the record is in memory,
     * the write would not stall), and returns true; otherwise returns false having done and answered nothing, and
     * the request goes to a worker ({@link #handle}). Saves the worker hand-off on the common path without ever
     * letting a selector wait for the disk.
     */
    default boolean tryInline(EntityRequest request, Responder responder) {
        return false;
    }
}
