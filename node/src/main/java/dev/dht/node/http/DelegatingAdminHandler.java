package dev.dht.node.http;

import one.nio.http.Request;

/**
 * Another handler's endpoint with fixed traits: the one home of {@link AdminHandler#writing} and
 * {@link AdminHandler#status}. A class, not a record: handlers keep identity equality, as the anonymous classes
 * it replaces had.
 */
final class DelegatingAdminHandler implements AdminHandler {
    private final AdminHandler handler;
    private final int method;
    private final String allowed;
    private final boolean privileged;
    private final boolean onWorkers;

    DelegatingAdminHandler(AdminHandler handler, int method, String allowed, boolean privileged, boolean onWorkers) {
        this.handler = handler;
        this.method = method;
        this.allowed = allowed;
        this.privileged = privileged;
        this.onWorkers = onWorkers;
    }

    @Override
    public void handle(Request request, Responder responder) throws BadRequestException {
        handler.handle(request, responder);
    }

    @Override
    public boolean allows(int m) {
        return m == method;
    }

    @Override
    public String allowed() {
        return allowed;
    }

    @Override
    public boolean privileged(int m) {
        return privileged;
    }

    @Override
    public boolean onWorkers() {
        return onWorkers;
    }
}
