package dev.dht.node.http;

/**
 * Serves /v0/entity. Runs on a worker thread and must not block on anything slow: it answers through the
 * responder, now or later from another thread. The standalone node answers from local storage; the cluster
 * coordinator (next issue) implements this same interface.
 */
public interface EntityHandler {
    void handle(EntityRequest request, Responder responder);
}
