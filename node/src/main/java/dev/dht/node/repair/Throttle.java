package dev.dht.node.repair;

import java.util.concurrent.TimeUnit;

/**
 * Keeps repair's traffic (hashes, digests and records, in and out) within a rate, with a burst of at most a tenth
 * of a second's worth. Called from the repair and rebuild threads, which may sleep.
 */
final class Throttle {
    private static final long BURST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private final long bytesPerSecond;
    private long allowedAt = System.nanoTime();

    /** @param bytesPerSecond 0 for no limit */
    Throttle(long bytesPerSecond) {
        this.bytesPerSecond = bytesPerSecond;
    }

    /** Accounts for bytes moved and sleeps as long as the rate asks; false if interrupted. */
    boolean take(long bytes) {
        if (bytesPerSecond <= 0 || bytes <= 0) {
            return true;
        }
        long wait;
        synchronized (this) {
            long now = System.nanoTime();
            if (allowedAt < now - BURST_NANOS) {
                allowedAt = now - BURST_NANOS;
            }
            allowedAt += (long) (bytes * 1e9 / bytesPerSecond);
            wait = allowedAt - now;
        }
        if (wait <= 0) {
            return true;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(wait);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
