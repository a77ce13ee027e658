package dev.dht.node.http;

import one.nio.http.Request;

/**
 * Serves an operational endpoint (/metrics, /v0/admin/...). Runs on the small admin pool, apart from the
 * request workers, so that metrics and profiles stay reachable when the node is overloaded.
 */
public interface AdminHandler {
    void handle(Request request, Responder responder) throws BadRequestException;
}
