package dev.dht.node.support;

import dev.dht.node.api.LocalEntityHandler;
import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.EntityHandler;
import dev.dht.node.http.EntityRequest;
import dev.dht.node.http.Responder;
import dev.dht.node.storage.Store;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The real local handler, except that requests whose id starts with "hold" wait on a latch first. Makes "a worker
 * is busy" and "a request is in flight" facts a test controls instead of timing it hopes for.
 */
public final class HoldingHandler implements EntityHandler {
    private final EntityHandler real;
    private final CountDownLatch release = new CountDownLatch(1);
    private final Semaphore entered = new Semaphore(0);

    public HoldingHandler(Store store, HybridLogicalClock clock) {
        this.real = new LocalEntityHandler(store, clock);
    }

    @Override
    public void handle(EntityRequest request, Responder responder) {
        if (request.id().startsWith("hold")) {
            entered.release();
            try {
                if (!release.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("test never released the held request");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        real.handle(request, responder);
    }

    /** Waits until n held requests are inside the handler (on worker threads). */
    public void awaitEntered(int n) throws InterruptedException {
        if (!entered.tryAcquire(n, 30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("held requests did not reach a worker");
        }
    }

    public void releaseAll() {
        release.countDown();
    }
}
