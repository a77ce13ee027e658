package dev.dht.node.http;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import one.nio.http.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One dispatched request: the task a worker runs and the {@link Responder} that answers it over the one-nio
 * session, recording latency and ending the in-flight count. One object per request on the hot path.
 */
final class SessionResponder implements InlineResponder, Runnable {
    private static final Logger log = LoggerFactory.getLogger(SessionResponder.class);
    private static final VarHandle ANSWERED;

    static {
        try {
            ANSWERED = MethodHandles.lookup().findVarHandle(SessionResponder.class, "answered", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What a worker does with the request; answers through the responder it is given. */
    interface Work {
        void run(Responder responder);
    }

    /** Hands a request to a worker (or answers 503). */
    interface Dispatcher {
        void dispatch(SessionResponder task);
    }

    private final DhtSession session;
    private final Slot slot;
    private final RequestTracker tracker;
    private final int method;
    private final long startNanos;
    private final Work work;
    private final Dispatcher toWorker;

    @SuppressWarnings("unused") // written through ANSWERED
    private volatile int answered;

    SessionResponder(
            DhtSession session, RequestTracker tracker, int method, long startNanos, Work work, Dispatcher toWorker) {
        this.session = session;
        this.slot = session.startingSlot();
        this.tracker = tracker;
        this.method = method;
        this.startNanos = startNanos;
        this.work = work;
        this.toWorker = toWorker;
    }

    /** Work that may decline: returns false, having answered nothing, when it would have to wait. */
    interface Attempt {
        boolean tryRun(InlineResponder responder);
    }

    /** Runs on a worker. A handler that throws gets a 500 unless it already answered. */
    @Override
    public void run() {
        try {
            work.run(this);
        } catch (RuntimeException | Error e) {
            failed(e);
        }
    }

    /** Runs the attempt on the calling (selector) thread; false if it declined and the work is still to do. */
    boolean tryInline(Attempt attempt) {
        try {
            return attempt.tryRun(this);
        } catch (RuntimeException | Error e) {
            failed(e);
            return true;
        }
    }

    @Override
    public void toWorker() {
        session.toWorker(slot); // later requests of the connection must not overtake it now
        toWorker.dispatch(this);
    }

    private void failed(Throwable e) {
        log.error("request failed: {}", e.toString(), e);
        if (!answered()) {
            send(Responses.text(Responses.INTERNAL_ERROR, "internal error: " + e.getMessage()));
        }
    }

    private void claim() {
        if (!ANSWERED.compareAndSet(this, 0, 1)) {
            throw new IllegalStateException("request answered twice");
        }
    }

    @Override
    public void send(Response response) {
        claim();
        try {
            session.answer(slot, response);
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
            session.answerChunked(slot, Responses.chunkedHead(Responses.OK), body);
        } catch (IOException e) {
            // one-nio released the body (closing the source and finishing the count) before rethrowing.
            log.debug("range response not sent: {}", e.toString());
            session.close();
        }
    }

    boolean answered() {
        return (int) ANSWERED.getVolatile(this) != 0;
    }
}
