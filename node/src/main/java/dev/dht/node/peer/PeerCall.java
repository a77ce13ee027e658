package dev.dht.node.peer;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request in flight with its deadline and callback; completes exactly once, whoever gets there first. Callbacks
 * mostly run on the client's one I/O thread: one that throws is logged and the call counts as done, so a failing
 * callback (a local write refused by a full disk, say) can never stop the thread every other call depends on.
 */
final class PeerCall {
    private static final Logger log = LoggerFactory.getLogger(PeerCall.class);
    private static final AtomicIntegerFieldUpdater<PeerCall> DONE =
            AtomicIntegerFieldUpdater.newUpdater(PeerCall.class, "done");

    final String peer;
    final PeerRequest request;
    final long deadlineNanos;
    /** When {@link PeerCallback#slow()} is due if no answer came by then; only for calls on the watch list. */
    final long slowNanos;
    /** Sent again once already: a call is retried at most once (see PeerLink#failAll). */
    boolean retried;

    private final PeerCallback callback;
    private final PeerClient.Outcomes outcomes;

    @SuppressWarnings("unused") // through DONE
    private volatile int done;

    PeerCall(
            String peer,
            PeerRequest request,
            long deadlineNanos,
            long slowNanos,
            PeerCallback callback,
            PeerClient.Outcomes outcomes) {
        this.peer = peer;
        this.request = request;
        this.deadlineNanos = deadlineNanos;
        this.slowNanos = slowNanos;
        this.callback = callback;
        this.outcomes = outcomes;
    }

    void complete(PeerResponse response) {
        if (DONE.compareAndSet(this, 0, 1)) {
            outcomes.ok.increment();
            outcomes.observe(peer, response);
            try {
                callback.completed(response);
            } catch (RuntimeException e) {
                callbackFailed(e);
            }
        }
    }

    void fail(boolean timeout, String reason) {
        if (DONE.compareAndSet(this, 0, 1)) {
            (timeout ? outcomes.timeout : outcomes.error).increment();
            if (log.isDebugEnabled()) {
                log.debug(
                        "{} {} failed{}: {}", request.method(), request.target(), timeout ? " (timeout)" : "", reason);
            }
            try {
                callback.failed(timeout, reason);
            } catch (RuntimeException e) {
                callbackFailed(e);
            }
        }
    }

    private void callbackFailed(RuntimeException e) {
        log.error("the callback of {} {} to {} failed", request.method(), request.target(), peer, e);
    }

    /** The slow mark passed: tells the callback, unless the call completed already. I/O thread. */
    void markSlow() {
        if (done == 0) {
            try {
                callback.slow();
            } catch (RuntimeException e) {
                callbackFailed(e);
            }
        }
    }

    /** Fails with "timeout" if the deadline has passed by now, else with an error. */
    void failAt(long nowNanos, String reason) {
        boolean late = nowNanos - deadlineNanos >= 0;
        fail(late, late ? "no answer within the request timeout" : reason);
    }
}
