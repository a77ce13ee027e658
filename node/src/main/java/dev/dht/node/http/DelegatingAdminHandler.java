package dev.dht.node.http;

import one.nio.http.Request;

/**
 * Another handler's endpoint with fixed traits: the one home of {@link AdminHandler#writing} and
 * {@link AdminHandler#status}. The components {@code allowed} and {@code onWorkers} are the interface's methods of
 * those names. (Handlers are never compared, so a record's value equality changes nothing.)
 */
record DelegatingAdminHandler(AdminHandler handler, int method, String allowed, boolean privileged, boolean onWorkers)
        implements AdminHandler {
    @Override
    public void handle(Request request, Responder responder) throws BadRequestException {
        handler.handle(request, responder);
    }

    @Override
    public boolean allows(int m) {
        return m == method;
    }

    @Override
    public boolean privileged(int m) {
        return privileged;
    }
}
