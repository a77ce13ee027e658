package dev.dht.node.clock;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Hybrid logical clock (Kulkarni et al., 2014) packed in one long: the high 48 bits are physical milliseconds
 * since the epoch (good until year 10889), the low 16 bits a logical counter. Every timestamp it hands out is
 * strictly greater than every timestamp it handed out or {@link #observe observed} before, so writes that follow
 * each other order correctly even when the wall clock steps back or another node's clock runs ahead.
 */
public final class HybridLogicalClock {
    public static final int LOGICAL_BITS = 16;
    private static final long LOGICAL_MASK = (1L << LOGICAL_BITS) - 1;

    private final LongSupplier wallMillis;
    private final AtomicLong last = new AtomicLong();

    public HybridLogicalClock() {
        this(System::currentTimeMillis);
    }

    /** @param wallMillis the physical clock; tests inject one, the cluster issue may add a skew for tests. */
    public HybridLogicalClock(LongSupplier wallMillis) {
        this.wallMillis = wallMillis;
    }

    /** A fresh timestamp for a local event (a write coordinated here). */
    public long now() {
        long physical = wallMillis.getAsLong() << LOGICAL_BITS;
        while (true) {
            long prev = last.get();
            long next = Math.max(prev + 1, physical);
            if (last.compareAndSet(prev, next)) {
                return next;
            }
        }
    }

    /** Merges a timestamp received from elsewhere, so that later local timestamps are newer than it. */
    public void observe(long remote) {
        while (true) {
            long prev = last.get();
            if (remote <= prev || last.compareAndSet(prev, remote)) {
                return;
            }
        }
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
