package dev.dht.node.io;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;

/**
 * The node's one rate limiter: bytes per second, shared by whoever takes from it (a node's backup uploads or restore
 * downloads, repair's and a rebuild's traffic, data movement's sending): a caller that would exceed the rate sleeps.
 * A pause lets at most a tenth of a second accumulate, so a burst after idling stays small. Background traffic that
 * saturates the network was a common complaint (cassandra-medusa #409); the object store's SDK has its retry quota
 * off so that this is its only limit.
 */
public final class Throttle {
    private static final long BURST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private final long bytesPerSecond;
    private long allowedAt = System.nanoTime();

    /** @param bytesPerSecond 0 or less: no limit */
    public Throttle(long bytesPerSecond) {
        this.bytesPerSecond = bytesPerSecond;
    }

    public static Throttle unlimited() {
        return new Throttle(0);
    }

    public long bytesPerSecond() {
        return bytesPerSecond;
    }

    /** Waits until n more bytes fit in the rate. */
    public void take(long n) throws InterruptedException {
        if (bytesPerSecond <= 0 || n <= 0) {
            return;
        }
        long wait;
        synchronized (this) {
            long now = System.nanoTime();
            if (allowedAt < now - BURST_NANOS) {
                allowedAt = now - BURST_NANOS;
            }
            allowedAt += (long) (n * 1e9 / bytesPerSecond);
            wait = allowedAt - now;
        }
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }

    /**
     * As {@link #take}, for threads that stop when interrupted: false (with the thread's interrupt flag set again)
     * if the wait was interrupted.
     */
    public boolean pace(long n) {
        try {
            take(n);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The stream's bytes at this rate, read 64 KiB at a time at most. */
    public InputStream paced(InputStream in) {
        return new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = in.read(b, off, Math.min(len, 64 << 10));
                if (n > 0) {
                    try {
                        take(n);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted", e);
                    }
                }
                return n;
            }
        };
    }
}
