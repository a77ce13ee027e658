package dev.dht.node.replication.choice;

/**
 * A peer's recent answer times: a histogram of quarter-octave buckets (each about 19% wide) whose counts halve
 * every {@link #HALF_LIFE_NANOS}, so the quantiles follow what the peer does now and forget what it did seconds
 * ago. The median ranks peers against each other; the 99th percentile is when a read stops waiting for the peer
 * and asks another (Cassandra's {@code speculative_retry = 99p}).
 *
 * <p>Recording costs a few integer operations; the quantiles are recomputed every {@link #RECOMPUTE_EVERY}
 * samples and after each halving, and read without a lock. Writers synchronize (answers come from the peer
 * client's one I/O thread, so the lock is uncontended).
 */
final class LatencyEstimate {
    static final long HALF_LIFE_NANOS = 1_000_000_000L;
    /** Fewer samples (after decay) than this and the estimate is unknown: no quantile from a handful. */
    static final double MIN_WEIGHT = 16;

    static final int RECOMPUTE_EVERY = 8;
    /** Bucket i >= 4 holds [(4 + i % 4) << (i / 4 - 1), (5 + i % 4) << (i / 4 - 1)) microseconds; 0..3 one each. */
    static final int BUCKETS = 4 * 25; // up to 2^25 us = 33 s, beyond any request timeout

    private final double[] weights = new double[BUCKETS];
    private double total;
    private long lastDecay;
    private boolean started;
    private int sinceRecompute;
    private volatile long p50 = -1;
    private volatile long p99 = -1;

    /** Adds one answer time (nanoseconds), seen at {@code now} (System.nanoTime scale). */
    synchronized void record(long nanos, long now) {
        decay(now);
        weights[bucket(nanos / 1000)] += 1;
        total += 1;
        if (++sinceRecompute >= RECOMPUTE_EVERY || p99 < 0) {
            recompute();
        }
    }

    /** Halves the counts once per half-life passed since the last halving. */
    private void decay(long now) {
        if (!started) {
            started = true;
            lastDecay = now;
            return;
        }
        long periods = (now - lastDecay) / HALF_LIFE_NANOS;
        if (periods <= 0) {
            return;
        }
        lastDecay += periods * HALF_LIFE_NANOS;
        double factor = periods >= 60 ? 0 : Math.pow(0.5, periods);
        total = 0;
        for (int i = 0; i < BUCKETS; i++) {
            weights[i] *= factor;
            total += weights[i];
        }
        recompute();
    }

    private void recompute() {
        sinceRecompute = 0;
        if (total < MIN_WEIGHT) {
            p50 = -1;
            p99 = -1;
            return;
        }
        long median = -1;
        double cumulative = 0;
        for (int i = 0; i < BUCKETS; i++) {
            cumulative += weights[i];
            if (median < 0 && cumulative >= 0.5 * total) {
                median = upperNanos(i);
            }
            if (cumulative >= 0.99 * total) {
                p50 = median;
                p99 = upperNanos(i);
                return;
            }
        }
        p50 = median;
        p99 = upperNanos(BUCKETS - 1);
    }

    /** The median answer time in nanoseconds (a bucket's upper bound), or -1 while too few samples. */
    long p50() {
        return p50;
    }

    /** The 99th percentile in nanoseconds (a bucket's upper bound), or -1 while too few samples. */
    long p99() {
        return p99;
    }

    static int bucket(long micros) {
        if (micros < 4) {
            return (int) Math.max(0, micros);
        }
        int msb = 63 - Long.numberOfLeadingZeros(micros);
        int sub = (int) (micros >>> (msb - 2)) & 3;
        return Math.min(BUCKETS - 1, 4 * (msb - 1) + sub);
    }

    /** The exclusive upper bound of bucket i, in nanoseconds. */
    static long upperNanos(int i) {
        long micros = i < 4 ? i + 1 : (long) (5 + i % 4) << (i / 4 - 1);
        return micros * 1000;
    }
}
