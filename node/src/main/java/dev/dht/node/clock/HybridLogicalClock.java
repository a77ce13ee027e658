package dev.dht.node.clock;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hybrid logical clock (Kulkarni et al., 2014) packed in one long: the high 48 bits are physical milliseconds
 * since the epoch, the low 16 bits a logical counter. Every timestamp it hands out is strictly greater than every
 * timestamp it handed out or {@link #observe observed} before, so writes that follow each other order correctly
 * even when the wall clock steps back or another node's clock runs ahead.
 *
 * <p>Bounded (docs/security.md, "Clocks"): a reading or record timestamp more than {@code maxAhead} ahead of the
 * local wall clock is refused, counted and logged, never merged. Unbounded, one message stamped years ahead moved
 * this clock there, every answer carried it to the other members, and a stamp at the end of the range made
 * {@link #now} wrap (a write loop spun forever). The clock never wraps: past its last value it throws.
 */
public final class HybridLogicalClock {
    private static final Logger log = LoggerFactory.getLogger(HybridLogicalClock.class);
    public static final int LOGICAL_BITS = 16;
    private static final long LOGICAL_MASK = (1L << LOGICAL_BITS) - 1;
    /**
     * The default bound on readings ahead of the wall clock. Members' clocks must agree within it (NTP keeps
     * hosts within milliseconds; a VM resumed from a pause or a host whose NTP failed can be seconds off until it
     * is stepped); what a broken or hostile clock can do is bounded by it: it moves the cluster's clocks at most
     * this far ahead.
     */
    public static final Duration DEFAULT_MAX_AHEAD = Duration.ofSeconds(30);

    private static final long LOG_EVERY_NANOS = 10_000_000_000L;

    private final LongSupplier wallMillis;
    private final long maxAheadMillis;
    private final AtomicLong last = new AtomicLong();
    private final LongAdder refused = new LongAdder();
    private final AtomicLong lastLog = new AtomicLong(System.nanoTime() - LOG_EVERY_NANOS);

    public HybridLogicalClock() {
        this(System::currentTimeMillis);
    }

    /** @param wallMillis the physical clock; tests inject one, the cluster issue may add a skew for tests. */
    public HybridLogicalClock(LongSupplier wallMillis) {
        this(wallMillis, DEFAULT_MAX_AHEAD);
    }

    /** @param maxAhead readings and timestamps further ahead of {@code wallMillis} than this are refused */
    public HybridLogicalClock(LongSupplier wallMillis, Duration maxAhead) {
        if (maxAhead.isNegative()) {
            throw new IllegalArgumentException("the bound ahead of the wall clock must not be negative");
        }
        this.wallMillis = wallMillis;
        this.maxAheadMillis = maxAhead.toMillis();
    }

    /** A fresh timestamp for a local event (a write coordinated here). */
    public long now() {
        long physical = wallMillis.getAsLong() << LOGICAL_BITS;
        while (true) {
            long prev = last.get();
            if (prev == Long.MAX_VALUE) {
                throw new IllegalStateException("the hybrid logical clock reached its last value");
            }
            long next = Math.max(prev + 1, physical);
            if (last.compareAndSet(prev, next)) {
                return next;
            }
        }
    }

    /**
     * Merges a timestamp received from elsewhere, so that later local timestamps are newer than it. Returns false,
     * and merges nothing, when it is further ahead of the wall clock than the bound.
     */
    public boolean observe(long remote) {
        long prev = last.get();
        if (remote <= prev) {
            return true; // the common case: nothing to merge, nothing to check
        }
        if (!admit(remote)) {
            return false;
        }
        while (true) {
            if (remote <= prev || last.compareAndSet(prev, remote)) {
                return true;
            }
            prev = last.get();
        }
    }

    /**
     * Whether a record's timestamp may be stored here: not further ahead of the wall clock than the bound.
     * A refusal is counted ({@link #refused()}) and logged (at most every 10 s).
     */
    public boolean admit(long timestamp) {
        long wall = wallMillis.getAsLong();
        long ahead = physicalMillis(timestamp) - wall;
        if (timestamp >= 0 && ahead <= maxAheadMillis) {
            return true;
        }
        refused.increment();
        long now = System.nanoTime();
        long logged = lastLog.get();
        if (now - logged >= LOG_EVERY_NANOS && lastLog.compareAndSet(logged, now)) {
            log.warn(
                    "refused a clock reading or record timestamp {} ahead of this node's wall clock (bound {} ms, "
                            + "--max-clock-ahead; {} refused so far, dht_clock_refused_total): not merged, not stored",
                    timestamp < 0 ? "beyond the clock's range" : ahead + " ms",
                    maxAheadMillis,
                    refused.sum());
        }
        return false;
    }

    /** Readings and timestamps refused as too far ahead since start. */
    public long refused() {
        return refused.sum();
    }

    public long maxAheadMillis() {
        return maxAheadMillis;
    }

    public static long physicalMillis(long timestamp) {
        return timestamp >>> LOGICAL_BITS;
    }

    public static int logical(long timestamp) {
        return (int) (timestamp & LOGICAL_MASK);
    }

    public static long of(long physicalMillis, int logical) {
        return (physicalMillis << LOGICAL_BITS) | (logical & LOGICAL_MASK);
    }

    public static String format(long timestamp) {
        return physicalMillis(timestamp) + "." + logical(timestamp);
    }
}
