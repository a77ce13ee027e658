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

    /**
     * Whether a request with this method changes the node's state or costs resources (a profile, a cleanup, a
     * rebuild): then the client port serves it only to a loopback peer or an admin token (docs/security.md).
     * The safe default is yes; read-only status endpoints say no.
     */
    default boolean privileged(int method) {
        return true;
    }

    /** Whether it runs on the request workers (it may wait for the disk) rather than the admin pool. */
    default boolean onWorkers() {
        return false;
    }

    /**
     * A member-plane PUT that writes what it receives (records a move or a restore streams): on the request workers,
     * since it may wait for the disk.
     */
    static AdminHandler writing(AdminHandler handler) {
        return new DelegatingAdminHandler(handler, Request.METHOD_PUT, "PUT", true, true);
    }

    /** A read-only status endpoint (GET): open to every client of the client port, as /v0/status is. */
    static AdminHandler status(AdminHandler handler) {
        return new DelegatingAdminHandler(handler, Request.METHOD_GET, "GET", false, false);
    }
}
