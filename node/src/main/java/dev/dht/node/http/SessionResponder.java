package dev.dht.node.http;

import one.nio.http.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@link Responder} over a one-nio session; records the request's latency and ends its in-flight count. */
final class SessionResponder implements Responder {
    private static final Logger log = LoggerFactory.getLogger(SessionResponder.class);

    private final DhtSession session;
    private final RequestTracker tracker;
    private final int method;
    private final long startNanos;
    private final AtomicBoolean answered = new AtomicBoolean();

    SessionResponder(DhtSession session, RequestTracker tracker, int method, long startNanos) {
        this.session = session;
        this.tracker = tracker;
        this.method = method;
        this.startNanos = startNanos;
    }

    private void claim() {
        if (!answered.compareAndSet(false, true)) {
            throw new IllegalStateException("request answered twice");
        }
    }

    @Override
    public void send(Response response) {
        claim();
        try {
            session.sendResponse(response);
        } catch (IOException e) {
            // The client went away; nothing to tell it.
            log.debug("response not sent: {}", e.toString());
        } finally {
            tracker.finished(method, response.getStatus(), startNanos);
        }
    }

    @Override
    public void stream(ChunkSource source) {
        claim();
        ChunkedBodyWriter body = new ChunkedBodyWriter(source, () -> tracker.finished(method, 200, startNanos));
        try {
            session.sendChunked(Responses.chunkedHead(Responses.OK), body);
        } catch (IOException e) {
            // one-nio released the body (closing the source and finishing the count) before rethrowing.
            log.debug("range response not sent: {}", e.toString());
            session.close();
        }
    }

    boolean answered() {
        return answered.get();
    }
}
