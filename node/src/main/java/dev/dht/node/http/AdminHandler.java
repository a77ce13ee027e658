package dev.dht.node.http;

import one.nio.http.Request;

/**
 * Serves an operational endpoint (/metrics, /v0/admin/...). Runs on the small admin pool, apart from the
 * request workers, so that metrics and profiles stay reachable when the node is overloaded; an endpoint that
 * writes to the store (the records a move streams in) says so and runs on the workers instead.
 */
public interface AdminHandler {
    void handle(Request request, Responder responder) throws BadRequestException;

    /** Whether the endpoint answers this method (others get 405). */
    default boolean allows(int method) {
        return method == Request.METHOD_GET;
    }

    /** The methods it answers, for the Allow header of a 405. */
    default String allowed() {
        return "GET";
    }

    /** Whether it runs on the request workers (it may wait for the disk) rather than the admin pool. */
    default boolean onWorkers() {
        return false;
    }
}
