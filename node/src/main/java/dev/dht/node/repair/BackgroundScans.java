package dev.dht.node.repair;

import dev.dht.node.natives.BackgroundPriority;
import dev.dht.node.threads.DaemonThreads;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread under {@code SCHED_IDLE} ({@link BackgroundPriority}) where repair scans the local store: hashes and
 * digests of whole ranges, for a round this node coordinates or for a coordinator that asked. Hashing a store of
 * millions of keys takes seconds of CPU; on the request workers and the repair thread, at normal priority, a round
 * raised a 1000 req/s load's p99 1.7-2x (docs/cluster.md, "Cost"). Here it takes only CPU no request wants, and a
 * node saturated by clients starves it: the coordinator's call times out and the round is tried again later.
 *
 * <p>Only the scan runs here, never what takes a lock a request needs too: answers to peers are sent, and calls to
 * peers made, by threads of normal priority (a thread under SCHED_IDLE preempted while it held a member connection's
 * lock would stall every request queued on that connection).
 */
final class BackgroundScans implements LocalScans, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BackgroundScans.class);
    private final ThreadPoolExecutor executor;
    /** Normal priority: hands what a scan found on (see the class comment); null when nothing is handed on. */
    private final ThreadPoolExecutor sender;

    /**
     * @param thread     the thread's name (15 characters at most: the kernel's name of it, in /proc, is cut there)
     * @param queue      scans that may wait: more are refused
     * @param senderName the name of the normal-priority thread that {@link #submit} hands results to (its queue
     *                   holds at most one per scan), or null: then only {@link #run} is used
     */
    BackgroundScans(String thread, int queue, String senderName) {
        this.executor = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queue),
                BackgroundPriority.threadFactory(thread, false),
                new ThreadPoolExecutor.AbortPolicy());
        if (senderName == null) {
            this.sender = null;
        } else {
            this.sender = new ThreadPoolExecutor(
                    1,
                    1,
                    0,
                    TimeUnit.MILLISECONDS,
                    new LinkedBlockingQueue<>(),
                    DaemonThreads.factory(senderName, false));
            // Started here, by the thread that builds the node: a thread inherits its creator's scheduling policy, and
            // made on demand it would be made by the SCHED_IDLE scan thread that first hands it something.
            this.sender.prestartCoreThread();
        }
    }

    /**
     * Queues the scan; what it returns goes to then, on a thread of normal priority. False (nothing runs) when the
     * queue is full or this is closed.
     */
    <T> boolean submit(Supplier<T> scan, Consumer<T> then) {
        try {
            executor.execute(() -> handOn(scan.get(), then));
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private <T> void handOn(T result, Consumer<T> then) {
        try {
            sender.execute(() -> {
                try {
                    then.accept(result);
                } catch (RuntimeException e) {
                    // never let the sender's thread die: its replacement would be made by a scan thread
                    log.warn("repair answer not handed on: {}", e.toString());
                }
            });
        } catch (RejectedExecutionException closed) {
            // closing: the caller's connection goes with the node
        }
    }

    /** Runs the scan on the background thread and waits for it (the caller holds no lock meanwhile). */
    @Override
    public <T> T run(Supplier<T> scan) throws RepairException {
        Future<T> f;
        try {
            f = executor.submit(scan::get);
        } catch (RejectedExecutionException e) {
            throw new RepairException("this node", "its background scans are full or closed");
        }
        try {
            return f.get();
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            throw new RepairException("this node", "interrupted while scanning its store");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        if (sender != null) {
            sender.shutdown();
        }
    }
}
