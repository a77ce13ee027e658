package dev.dht.node.loop;

import dev.dht.node.storage.PassThread;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import one.nio.net.Selector;
import one.nio.net.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A thread that runs one one-nio selector, the way one-nio's own selector thread does (wait for ready sessions,
 * let each process what it read), plus one thing it lacks: work deferred to the end of the pass. A pass is one
 * round of ready sessions; what the requests of a pass leave for its end is done once for all of them:
 *
 * <ul>
 *   <li>{@link #sendAtEndOfPass}: requests to other nodes, written once per connection instead of once per call;</li>
 *   <li>{@link #applyAtEndOfPass}: the pass's writes, applied to RocksDB as one batch (one WAL write) before their
 *       answers go out (group commit without waiting for anything but the pass itself).</li>
 * </ul>
 *
 * Sends run before applies, so the network starts while the local batch is written. A task may register more
 * tasks (an answer lets one-nio start the next pipelined request of that connection): the end of a pass runs until
 * none is left. Tasks register at most once per pass; they keep that state themselves ({@link Task}).
 */
public final class SelectorLoop extends Thread implements PassThread {
    private static final Logger log = LoggerFactory.getLogger(SelectorLoop.class);
    private static final int BUFFER_SIZE = 64000; // one-nio's own read buffer size

    /** Work done at the end of a pass. */
    public interface Task {
        void endOfPass();
    }

    /**
     * A session that may hold input no readiness will signal (TLS: decrypted plaintext, or whole records read along
     * with the last one): the loop has it process that before going back to select.
     */
    public interface BufferedInput {
        /** Processes buffered input if there is any; false when there was none. */
        boolean processBuffered(byte[] buffer) throws Exception;
    }

    /** Rounds of buffered input per session and pass (each consumes up to a buffer of it: a guard, not a limit). */
    private static final int MAX_BUFFERED_ROUNDS = 64;

    private final Selector selector;
    private final List<Task> sends = new ArrayList<>();
    private final List<Task> applies = new ArrayList<>();
    private long passes;

    public SelectorLoop(Selector selector, String name) {
        super(name);
        this.selector = selector;
    }

    /** The loop running on the calling thread, or null if the caller is not a selector loop. */
    public static SelectorLoop current() {
        return Thread.currentThread() instanceof SelectorLoop loop ? loop : null;
    }

    /** Runs the task when this pass ends, before the applies. Only from this loop's own thread. */
    public void sendAtEndOfPass(Task task) {
        sends.add(task);
    }

    /** Runs the work when this pass ends, after the sends. Only from this loop's own thread. */
    @Override
    public void applyAtEndOfPass(Runnable work) {
        applies.add(work::run);
    }

    @Override
    public void run() {
        byte[] buffer = new byte[BUFFER_SIZE];
        while (selector.isOpen()) {
            for (Iterator<Session> ready = select(); ready.hasNext(); ) {
                Session session = ready.next();
                try {
                    session.process(buffer);
                    if (session instanceof BufferedInput b) {
                        for (int i = 0; i < MAX_BUFFERED_ROUNDS && b.processBuffered(buffer); i++) {
                            // each round reads what the socket holds already
                        }
                    }
                } catch (Throwable e) {
                    session.handleException(e);
                }
            }
            endOfPass();
        }
        endOfPass(); // closing: whatever the last pass left still gets done (and its requests answered)
    }

    /**
     * The ready sessions, or none when the selector itself threw: one-nio 2.0.0's JavaSelector guards its JDK
     * select() but not the pass over the selected keys after it, which reads a key's readyOps() and throws
     * CancelledKeyException when another thread cancelled that key meanwhile. Uncaught, that ended this thread and
     * every connection on it hung (make chaos). The keys stay selected (one-nio clears them only after that pass),
     * so the sessions still ready come back in the next pass. A session's own failure is its handleException's.
     */
    private Iterator<Session> select() {
        try {
            return selector.select();
        } catch (RuntimeException e) {
            log.warn("{}: selecting failed, next pass: {}", getName(), e.toString());
            return Collections.emptyIterator();
        }
    }

    private void endOfPass() {
        passes++;
        while (!sends.isEmpty() || !applies.isEmpty()) {
            runAll(sends);
            runAll(applies);
        }
    }

    private void runAll(List<Task> tasks) {
        // by index: a task may append to the list it runs from
        for (int i = 0; i < tasks.size(); i++) {
            try {
                tasks.get(i).endOfPass();
            } catch (RuntimeException | Error e) {
                log.error("end-of-pass task failed: {}", e.toString(), e);
            }
        }
        tasks.clear();
    }

    /** Passes run so far (read from other threads for metrics; a stale value is fine). */
    public long passes() {
        return passes;
    }
}
