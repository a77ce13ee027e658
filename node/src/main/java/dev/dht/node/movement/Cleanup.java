package dev.dht.node.movement;

import dev.dht.node.io.Throttle;
import dev.dht.node.ring.Ring;
import dev.dht.node.storage.RangeCursor;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import dev.dht.node.topology.TopologyState;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops the records this node does not hold in its stable set: those whose key's first rf replicas on the ring do
 * not include it (every record, on a node that left). Runs after every member of the last move finalized
 * (docs/cluster.md, "Stages", 7), a slice at a time, scanning no faster than the move rate (the node's one rate
 * limiter, {@link Throttle}), with
 * {@link Store#removeIfSame}: a record written after the scan read it is never dropped.
 */
final class Cleanup {
    private static final Logger log = LoggerFactory.getLogger(Cleanup.class);
    static final int SLICE_RECORDS = 1_000;
    /** Pause between slices at least: the deletes become RocksDB tombstones that compaction must digest. */
    static final long PAUSE_MILLIS = 5;

    private final Store store;
    private final IntUnaryOperator rf;
    private final MovementStats stats;
    private final String self;
    private final Throttle throttle;

    /** @param rateBytesPerSecond bytes of records scanned per second at most (the move rate; 0: no limit) */
    Cleanup(Store store, IntUnaryOperator rf, MovementStats stats, String self, long rateBytesPerSecond) {
        this.store = store;
        this.rf = rf;
        this.stats = stats;
        this.self = self;
        this.throttle = new Throttle(rateBytesPerSecond);
    }

    /** Runs to the end (true) unless the state stops being current (false). */
    boolean run(TopologyState s, BooleanSupplier current) {
        Ring ring = new Ring(s.stable().urls(), s.stable().racks());
        int me = ring.indexOf(self);
        int factor = rf.applyAsInt(ring.size());
        int[] walk = new int[factor];
        byte[] from = new byte[0];
        long dropped = 0;
        long scanned = 0;
        while (true) {
            if (!current.getAsBoolean()) {
                log.info("cleanup stopped after {} records ({} dropped): the topology changed", scanned, dropped);
                return false;
            }
            byte[] last = null;
            int n = 0;
            long bytes = 0;
            try (RangeCursor cursor = store.range(from, null)) {
                while (n < SLICE_RECORDS && cursor.next()) {
                    n++;
                    byte[] key = cursor.key();
                    last = key;
                    Record r = cursor.record();
                    bytes += key.length + r.encoded().length;
                    if (!holds(ring, me, factor, walk, key)) {
                        if (store.removeIfSame(key, r)) {
                            dropped++;
                            stats.cleanupDropped.increment();
                        }
                    }
                }
            }
            scanned += n;
            stats.cleanupScanned.add(n);
            if (n < SLICE_RECORDS || last == null) {
                log.info("cleanup for {}: {} records scanned, {} dropped", s, scanned, dropped);
                return true;
            }
            from = Arrays.copyOf(last, last.length + 1);
            try {
                TimeUnit.MILLISECONDS.sleep(PAUSE_MILLIS);
                throttle.take(bytes);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    private static boolean holds(Ring ring, int me, int factor, int[] walk, byte[] key) {
        if (me < 0) {
            return false;
        }
        ring.replicaIndexes(Ring.keyHash(key), factor, walk);
        for (int i = 0; i < factor; i++) {
            if (walk[i] == me) {
                return true;
            }
        }
        return false;
    }
}
