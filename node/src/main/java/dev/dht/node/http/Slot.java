package dev.dht.node.http;

import one.nio.http.Request;
import one.nio.net.Session.QueueItem;

/** One request of this connection, from its start until its answer is written. */
final class Slot {
    final Request request;
    final RequestKind kind;
    /** The caller's X-Dht-Call number: answered as soon as ready, echoing it (null: in request order). */
    final String call;
    /** Still on the selector path (not handed to a worker, which could reorder a write). */
    boolean inline = true;
    /** The answer's head (and whole answer unless a body follows); null until answered. */
    byte[] answer;

    QueueItem body;
    boolean close;

    /** @param numbered whether an X-Dht-Call number counts (the member port's calls only) */
    Slot(Request request, RequestKind kind, boolean numbered) {
        this.request = request;
        this.kind = kind;
        this.call = numbered ? request.getHeader(DhtSession.CALL_HEADER) : null;
    }

    /** Whether a request of the given kind may start while this one is unanswered. */
    boolean admits(RequestKind next) {
        return kind == next && (kind == RequestKind.READ || kind == RequestKind.WRITE && inline);
    }
}
