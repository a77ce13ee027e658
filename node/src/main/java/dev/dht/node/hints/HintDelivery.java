package dev.dht.node.hints;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.peer.PeerResponse;
import dev.dht.node.replication.Protocol;
import dev.dht.node.storage.StoreException;
import dev.dht.node.threads.DaemonThreads;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Offers pending hints to their peers every interval, oldest first, in pipelined batches through the peer client.
 * A peer that fails a hint is left alone until the next round (it is down or overloaded); a hint it accepted, or
 * answered 409 for (it already holds something newer), is removed. Hints older than the maximum age are dropped.
 * Runs on its own thread: waiting for a batch's answers there holds no request thread.
 */
public final class HintDelivery implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HintDelivery.class);
    /** Hints sent to one peer at once (pipelined); a round continues batch after batch while the peer accepts. */
    static final int BATCH = 256;

    private final HintStore hints;
    private final HintRouting routing;
    private final PeerClient client;
    private final HybridLogicalClock clock;
    private final LongSupplier wallMillis;
    private final long maxAgeMillis;
    private final long timeoutNanos;
    private final long intervalNanos;
    private final ScheduledExecutorService timer;
    private volatile boolean closed;

    /** @param routing which members still serve, and where the hints of one that left go */
    public HintDelivery(
            HintStore hints,
            HintRouting routing,
            PeerClient client,
            HybridLogicalClock clock,
            LongSupplier wallMillis,
            Duration maxAge,
            Duration interval,
            Duration requestTimeout) {
        this.hints = hints;
        this.routing = routing;
        this.client = client;
        this.clock = clock;
        this.wallMillis = wallMillis;
        this.maxAgeMillis = maxAge.toMillis();
        this.timeoutNanos = requestTimeout.toNanos();
        this.intervalNanos = interval.toNanos();
        this.timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("dht-hints", false));
        DaemonThreads.repeat(timer, "hint delivery round", interval, this::round);
    }

    /** One pass over every peer with hints. */
    void round() {
        try {
            if (!routing.decided()) {
                return;
            }
            for (String peer : hints.peers()) {
                if (closed) {
                    return;
                }
                if (routing.serves(peer)) {
                    deliverTo(peer);
                } else {
                    reroute(peer);
                }
            }
        } catch (StoreException e) {
            if (!closed) {
                log.warn("hint delivery round failed: {}", e.getMessage());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The member left: its hints go to their keys' current replicas instead (not dropped: trap 6). */
    private void reroute(String peer) {
        while (!closed) {
            List<HintStore.Hint> batch = hints.oldest(peer, BATCH);
            if (batch.isEmpty()) {
                return;
            }
            long now = wallMillis.getAsLong();
            for (HintStore.Hint h : batch) {
                if (now - h.createdMillis() > maxAgeMillis) {
                    hints.expired(h);
                } else {
                    routing.reroute(h.key(), h.record());
                    hints.rerouted(h);
                }
            }
            log.info("{} hints for {}, which no longer serves, re-routed to their keys' replicas", batch.size(), peer);
        }
    }

    private void deliverTo(String peer) throws InterruptedException {
        long roundEnd = System.nanoTime() + intervalNanos;
        while (!closed) {
            List<HintStore.Hint> batch = hints.oldest(peer, BATCH);
            if (batch.isEmpty()) {
                return;
            }
            long now = wallMillis.getAsLong();
            CountDownLatch done = new CountDownLatch(batch.size());
            AtomicBoolean failed = new AtomicBoolean();
            long deadline = System.nanoTime() + timeoutNanos;
            for (HintStore.Hint h : batch) {
                if (now - h.createdMillis() > maxAgeMillis) {
                    hints.expired(h);
                    done.countDown();
                    continue;
                }
                client.send(
                        peer,
                        Protocol.write(Protocol.entityTarget(h.key()), h.record(), clock.now(), routing.header()),
                        deadline,
                        new PeerCallback() {
                            @Override
                            public void completed(PeerResponse response) {
                                try {
                                    if (response.clock() > 0) {
                                        clock.observe(response.clock());
                                    }
                                    if (Protocol.writeStored(response) || response.status() == Protocol.CONFLICT) {
                                        hints.delivered(h);
                                    } else {
                                        failed.set(true);
                                    }
                                } catch (RuntimeException e) {
                                    failed.set(true); // e.g. a full disk refused the delete: the hint stays
                                    throw e;
                                } finally {
                                    done.countDown(); // else the round waits out its margin for nothing
                                }
                            }

                            @Override
                            public void failed(boolean timeout, String reason) {
                                failed.set(true);
                                done.countDown();
                            }
                        });
            }
            // Every call ends by its deadline; the margin covers the client's deadline scan.
            if (!done.await(timeoutNanos + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS)) {
                return;
            }
            if (failed.get() || batch.size() < BATCH || System.nanoTime() - roundEnd > 0) {
                return; // peer still down, or all sent, or this peer had its share of the round
            }
        }
    }

    /** Stops the loop and waits for a round in progress (its calls end by their deadline). */
    @Override
    public void close() {
        closed = true;
        timer.shutdown();
        try {
            timer.awaitTermination(timeoutNanos + TimeUnit.SECONDS.toNanos(2), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
