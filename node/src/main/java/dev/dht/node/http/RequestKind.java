package dev.dht.node.http;

import one.nio.http.Request;

/** What a request does, for deciding what may run beside it. */
enum RequestKind {
    /** PUT/DELETE of /v0/entity: may start while every earlier unanswered request is such a write on the
     *  selector path (they share the pass's write group and apply in request order) */
    WRITE,
    /** GET of /v0/entity: may start while every earlier unanswered request is such a read (reads commute) */
    READ,
    /** anything else: starts only when everything before it is answered, and blocks what comes after it */
    OTHER;

    static RequestKind of(Request request) {
        if (!DhtServer.ENTITY.equals(request.getPath())) {
            return OTHER;
        }
        return switch (request.getMethod()) {
            case Request.METHOD_PUT, Request.METHOD_DELETE -> WRITE;
            case Request.METHOD_GET -> READ;
            default -> OTHER;
        };
    }
}
