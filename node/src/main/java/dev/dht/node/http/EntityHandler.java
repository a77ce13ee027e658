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
}
