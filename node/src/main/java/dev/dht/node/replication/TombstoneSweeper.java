package dev.dht.node.replication;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.storage.RangeCursor;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import dev.dht.node.storage.StoreException;
import dev.dht.node.threads.DaemonThreads;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Purges tombstones older than the grace period. rocksdbjni offers no compaction filter written in Java, so a
 * background sweeper walks the records a slice at a time ({@link #SLICE} records per tick, resuming where it
 * stopped, wrapping around at the end) and deletes an old tombstone with {@link Store#removeIfSame}: a
 * compare-and-delete under the key's write lock, so a write that lands after the sweeper looked is never lost.
 *
 * <p>Why a grace period at all: a replica that was down while a key was deleted still holds the value; as long as
 * a tombstone exists somewhere, read repair and hints make it win. Purged too early, the old value would come
 * back. The grace (default 1 day) is far longer than the hint age (3 h), as in Cassandra's gc_grace_seconds.
 */
public final class TombstoneSweeper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TombstoneSweeper.class);
    /** Records examined per tick: bounds the time one tick holds the thread and an iterator. */
    static final int SLICE = 10_000;

    private final Store store;
    private final long graceMillis;
    private final LongSupplier wallMillis;
    private final ScheduledExecutorService timer;
    private final BooleanSupplier allowed;
    private final Gate gate;
    private final LongAdder purged = new LongAdder();
    private final LongAdder passes = new LongAdder();
    private byte[] resumeAt = {0};

    public TombstoneSweeper(Store store, Duration grace, LongSupplier wallMillis) {
        this(store, grace, wallMillis, () -> true);
    }

    /**
     * @param allowed false pauses the sweep: while members change, a tombstone must reach the new replicas before
     *                any node purges it (docs/cluster.md, "Hints, read repair, tombstones")
     */
    public TombstoneSweeper(Store store, Duration grace, LongSupplier wallMillis, BooleanSupplier allowed) {
        this(store, grace, wallMillis, allowed, Gate.GRACE_ONLY);
    }

    /**
     * Whether a tombstone older than the grace may go. In a cluster, only once every replica of its range took
     * part in a repair after it was written (repair.PurgeGate): a replica that missed the delete would otherwise
     * bring the value back.
     */
    @FunctionalInterface
    public interface Gate {
        Gate GRACE_ONLY = (key, tombstone, wallNow) -> true;

        boolean purgeable(byte[] key, Record tombstone, long wallNow);
    }

    /** @param gate decides, for a tombstone older than the grace, whether it may be purged */
    public TombstoneSweeper(Store store, Duration grace, LongSupplier wallMillis, BooleanSupplier allowed, Gate gate) {
        this.store = store;
        this.allowed = allowed;
        this.gate = gate;
        this.graceMillis = grace.toMillis();
        this.wallMillis = wallMillis;
        this.timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("dht-tombstone-sweeper", false));
        DaemonThreads.repeat(timer, "tombstone sweep", Duration.ofMillis(tickMillis(grace)), this::tick);
    }

    /** A tenth of the grace, between 100 ms and 10 s: a short grace (tests) is honoured within about 10%. */
    static long tickMillis(Duration grace) {
        return Math.max(100, Math.min(10_000, grace.toMillis() / 10));
    }

    public long purged() {
        return purged.sum();
    }

    /** Complete passes over the records so far (each tombstone was looked at once per pass). */
    public long passes() {
        return passes.sum();
    }

    /** Examines the next slice of records. */
    void tick() {
        if (!allowed.getAsBoolean()) {
            return;
        }
        try {
            sweep(SLICE);
        } catch (StoreException e) {
            log.debug("tombstone sweep skipped: {}", e.getMessage());
        }
    }

    /** Examines up to limit records from where the last call stopped; returns how many it purged. */
    int sweep(int limit) {
        long now = wallMillis.getAsLong();
        long cutoff = now - graceMillis;
        int seen = 0;
        int count = 0;
        byte[] last = null;
        try (RangeCursor cursor = store.range(resumeAt, null)) {
            while (seen < limit && cursor.next()) {
                seen++;
                Record r = cursor.record();
                last = cursor.key();
                if (r.isTombstone()
                        && HybridLogicalClock.physicalMillis(r.timestamp()) < cutoff
                        && gate.purgeable(last, r, now)
                        && store.removeIfSame(last, r)) {
                    count++;
                }
            }
        }
        if (seen < limit || last == null) {
            resumeAt = new byte[] {0}; // end of the keys: the next slice starts over
            passes.increment();
        } else {
            resumeAt = java.util.Arrays.copyOf(last, last.length + 1); // just after the last key seen
        }
        purged.add(count);
        return count;
    }

    @Override
    public void close() {
        timer.shutdown();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
