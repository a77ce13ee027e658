package dev.dht.node.storage;

/**
 * A thread that works in passes and can run work at the end of the current one: the node's selector loop, as
 * storage sees it. Storage defines this (and the loop implements it) so that storage knows nothing of one-nio or
 * the loop; {@link Store#applyAtEndOfPass} groups a pass's writes through it.
 */
public interface PassThread {
    /** Runs the work when the current pass ends, after the pass's network sends. Only from this thread. */
    void applyAtEndOfPass(Runnable work);

    /** The calling thread if it works in passes, else null (a worker, a test's thread). */
    static PassThread current() {
        return Thread.currentThread() instanceof PassThread t ? t : null;
    }
}
