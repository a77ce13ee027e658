package dev.dht.node.cluster;

import dev.dht.node.storage.Record;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;

/**
 * A quorum read/write/delete load with a model of what the clients were told (Jepsen's method, per key). Each key
 * has one writer thread, which runs its operations one after the other; so for each key the model knows the last
 * acknowledged operation, and the operations attempted since that got no answer (they may or may not have
 * landed). A quorum read must return the last acknowledged state or one of those attempts: anything older is a
 * violation (a stale read).
 */
final class QuorumModel {
    /** The outcome of an operation as the model keeps it: a value, or null for a delete / never written. */
    private static final class KeyState {
        String acked;
        boolean ackedKnown = true;
        final Set<String> attempts = new HashSet<>();
    }

    private final Map<String, KeyState> keys = new ConcurrentHashMap<>();
    private final List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    /** Keys written once before the load (their acknowledged value). */
    void preloaded(String key, String value) {
        KeyState s = new KeyState();
        s.acked = value;
        keys.put(key, s);
    }

    /**
     * Starts threads, each owning a slice of the keys: PUT 60%, DELETE 20%, GET 20% at the default quorum,
     * through a random running node (running tells which ones run right now).
     */
    void start(ProcessCluster c, int threadCount, IntPredicate running) {
        List<String> all = new ArrayList<>(keys.keySet());
        for (int t = 0; t < threadCount; t++) {
            List<String> mine = new ArrayList<>();
            for (int i = t; i < all.size(); i += threadCount) {
                mine.add(all.get(i));
            }
            int id = t;
            Thread thread = new Thread(() -> run(c, mine, running, id), "quorum-load-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    private void run(ProcessCluster c, List<String> mine, IntPredicate running, int id) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        long seq = 0;
        while (!stop.get()) {
            int node = rnd.nextInt(c.size());
            if (!running.test(node)) {
                continue;
            }
            String key = mine.get(rnd.nextInt(mine.size()));
            KeyState s = keys.get(key);
            int op = rnd.nextInt(10);
            try {
                EntityClient client = c.node(node);
                if (op < 6) {
                    String value = key + ":" + id + ":" + seq++;
                    s.attempts.add(value);
                    Reply r = client.put(key, value.getBytes(StandardCharsets.UTF_8));
                    if (r.status() == 201) {
                        s.acked = value;
                        s.attempts.clear();
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                    }
                } else if (op < 8) {
                    s.attempts.add(null);
                    Reply r = client.delete(key);
                    if (r.status() == 202) {
                        s.acked = null;
                        s.attempts.clear();
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                    }
                } else {
                    Reply r = client.get(key);
                    if (r.status() != 200 && r.status() != 404) {
                        failed.incrementAndGet();
                        continue;
                    }
                    reads.incrementAndGet();
                    String got = r.status() == 404 ? null : new String(r.body(), StandardCharsets.UTF_8);
                    if (!java.util.Objects.equals(got, s.acked) && !s.attempts.contains(got)) {
                        violations.add("GET " + key + " through node " + node + " answered " + got + " after " + s.acked
                                + " was acknowledged");
                    }
                }
            } catch (RuntimeException e) {
                failed.incrementAndGet(); // the node went away under the request: unknown outcome, kept as attempt
            }
        }
    }

    void stop() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join(30_000);
        }
    }

    List<String> violations() {
        return List.copyOf(violations);
    }

    long reads() {
        return reads.get();
    }

    long acknowledged() {
        return acked.get();
    }

    long failed() {
        return failed.get();
    }

    Set<String> keys() {
        return keys.keySet();
    }

    /** Whether a stored record is what the model allows as the key's final state. */
    boolean allows(String key, Record r) {
        KeyState s = keys.get(key);
        String got = r == null || r.isTombstone() ? null : new String(r.value(), StandardCharsets.UTF_8);
        return java.util.Objects.equals(got, s.acked) || s.attempts.contains(got);
    }

    /** The acknowledged state: a value, or null for deleted. */
    String acked(String key) {
        return keys.get(key).acked;
    }
}
