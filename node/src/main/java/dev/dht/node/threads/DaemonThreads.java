package dev.dht.node.threads;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's background threads: daemons, so they never hold the JVM up. A service's one thread (movement, rebuild,
 * repair) is stopped the same way by each service's close; an executor's threads come from {@link #factory}.
 */
public final class DaemonThreads {
    /** How long close waits for a service's loop to end: a loop checks its closed flag between steps. */
    private static final long STOP_WAIT_MILLIS = 10_000;

    private static final Logger log = LoggerFactory.getLogger(DaemonThreads.class);

    private DaemonThreads() {}

    /** A daemon thread named name that runs loop; not started. */
    public static Thread of(String name, Runnable loop) {
        Thread t = new Thread(loop, name);
        t.setDaemon(true);
        return t;
    }

    /** Daemon threads named name, or name-1, name-2, ... when numbered (a pool of several). */
    public static ThreadFactory factory(String name, boolean numbered) {
        AtomicInteger n = new AtomicInteger();
        return r -> of(numbered ? name + "-" + n.incrementAndGet() : name, r);
    }

    /**
     * Runs task on timer every period (after a first period) until the timer is shut down. A run that throws is
     * logged and the next one still comes: a task a ScheduledExecutorService saw throw is never run again, and the
     * service it drives (hint delivery, the tombstone sweep, a file's reload, a restore's learner) would stop without
     * a word.
     */
    public static void repeat(ScheduledExecutorService timer, String what, Duration period, Runnable task) {
        long nanos = period.toNanos();
        timer.scheduleWithFixedDelay(
                () -> {
                    try {
                        task.run();
                    } catch (RuntimeException e) {
                        log.error("{} failed; trying again in {}", what, period, e);
                    }
                },
                nanos,
                nanos,
                TimeUnit.NANOSECONDS);
    }

    /**
     * Interrupts the thread (out of a wait or a sleep) and waits up to 10 s for it to end; the caller has set the
     * flag its loop checks. An interrupt of the caller meanwhile is kept for the caller.
     */
    public static void stop(Thread thread) {
        thread.interrupt();
        try {
            thread.join(STOP_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
