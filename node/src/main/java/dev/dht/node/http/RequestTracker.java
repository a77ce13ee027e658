package dev.dht.node.http;

import dev.dht.node.metrics.NodeMetrics;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts requests from dispatch to answer (streams: to their last byte or their drop), for metrics and for a
 * graceful shutdown that waits until nothing is in flight.
 */
public final class RequestTracker {
    private final NodeMetrics metrics;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Object idle = new Object();

    public RequestTracker(NodeMetrics metrics) {
        this.metrics = metrics;
    }

    void started() {
        inFlight.incrementAndGet();
    }

    void finished(int method, int status, long startNanos) {
        metrics.observeRequest(method, status, System.nanoTime() - startNanos);
        if (inFlight.decrementAndGet() == 0) {
            synchronized (idle) {
                idle.notifyAll();
            }
        }
    }

    public int inFlight() {
        return inFlight.get();
    }

    /** Waits until no request is in flight or the deadline passes; returns whether it drained. */
    public boolean awaitIdle(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        synchronized (idle) {
            while (inFlight.get() > 0) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    return false;
                }
                idle.wait(left);
            }
        }
        return true;
    }
}
