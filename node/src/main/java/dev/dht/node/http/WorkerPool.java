package dev.dht.node.http;

import dev.dht.node.threads.DaemonThreads;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A fixed set of worker threads behind a bounded queue. {@link #trySubmit} never blocks and never grows the
 * queue: when it is full the caller answers 503 at once (an unbounded queue turns overload into 20-50 s
 * latencies, as the seed reports showed).
 */
public final class WorkerPool {
    private final ThreadPoolExecutor executor;
    private final BlockingQueue<Runnable> queue;

    public WorkerPool(String name, int threads, int queueSize) {
        this.queue = new ArrayBlockingQueue<>(queueSize);
        this.executor = new ThreadPoolExecutor(
                threads,
                threads,
                0,
                TimeUnit.MILLISECONDS,
                queue,
                DaemonThreads.factory(name, true),
                new ThreadPoolExecutor.AbortPolicy());
        executor.prestartAllCoreThreads();
    }

    /** Queues the task; false if the queue is full or the pool is shut down. */
    public boolean trySubmit(Runnable task) {
        try {
            executor.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Size of the queue: also the bound on requests in flight that run outside the pool. */
    public int capacity() {
        return queue.size() + queue.remainingCapacity();
    }

    public int queueDepth() {
        return queue.size();
    }

    public int active() {
        return executor.getActiveCount();
    }

    /** Stops taking tasks, lets queued and running ones finish; returns whether all did within the timeout. */
    public boolean shutdown(long timeoutMillis) throws InterruptedException {
        executor.shutdown();
        return executor.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
    }
}
