package dev.dht.node.http;

import one.nio.http.Response;

/**
 * Answers one request, exactly once, from any thread: the worker that ran it, or later a callback (the cluster
 * coordinator answers when enough replicas did, without holding a worker meanwhile).
 */
public interface Responder {
    /** Sends a complete response. */
    void send(Response response);

    /** Sends a chunked 200 whose chunks come from source, produced as the client reads. */
    void stream(ChunkSource source);

    /** Convenience: a plain-text error. */
    default void fail(String status, String message) {
        send(Responses.text(status, message));
    }
}
