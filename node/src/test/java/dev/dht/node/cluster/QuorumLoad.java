package dev.dht.node.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

/**
 * A steady quorum load on a {@link ScalingCluster} (or any nodes), and the checker of what it acknowledged (Jepsen's set workload
 * at quorum): writers PUT unique keys at 2/3 at a fixed pace through the coordinators the test allows, readers GET
 * already acknowledged keys at 2/3 throughout (or at another {@link Quorum}). A key is written once, so every 200 must carry exactly its value;
 * a 404 or another value for an acknowledged key is a wrong read. Other answers (503 while a node starts, 504,
 * a refused connection) are counted as unavailable, not wrong.
 */
final class QuorumLoad implements AutoCloseable {
    private final IntFunction<EntityClient> nodes;
    private final Quorum quorum;
    private final String run = TestData.randomId();
    private final Map<String, byte[]> acked = new ConcurrentHashMap<>();
    private final List<String> ackedIds = new CopyOnWriteArrayList<>();
    private final List<String> wrong = new CopyOnWriteArrayList<>();
    private final LongAdder writesOk = new LongAdder();
    private final LongAdder writesFailed = new LongAdder();
    private final LongAdder readsOk = new LongAdder();
    private final LongAdder readsUnavailable = new LongAdder();
    /** What the failed writes and unavailable reads got: "PUT 504", "GET UncheckedIOException", ... */
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();

    private final AtomicBoolean stop = new AtomicBoolean();
    private volatile int[] via;
    private final ExecutorService pool;
    private final List<Future<?>> threads = new ArrayList<>();

    /**
     * @param threads     writers and as many readers
     * @param opsPerThread per second, per thread
     */
    QuorumLoad(ScalingCluster cluster, int threads, int opsPerThread, int... via) {
        this(cluster::node, threads, opsPerThread, via);
    }

    /** What the writes and reads ask: ack/from of each (2/3 and 2/3 unless a test says otherwise). */
    record Quorum(int writeAck, int writeFrom, int readAck, int readFrom) {
        static final Quorum TWO_OF_THREE = new Quorum(2, 3, 2, 3);
    }

    /** @param nodes the API of node i */
    QuorumLoad(IntFunction<EntityClient> nodes, int threads, int opsPerThread, int... via) {
        this(nodes, Quorum.TWO_OF_THREE, threads, opsPerThread, via);
    }

    QuorumLoad(IntFunction<EntityClient> nodes, Quorum quorum, int threads, int opsPerThread, int... via) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.via = via.clone();
        this.pool = Executors.newFixedThreadPool(2 * threads);
        long periodNanos = TimeUnit.SECONDS.toNanos(1) / opsPerThread;
        for (int t = 0; t < threads; t++) {
            int writer = t;
            this.threads.add(pool.submit(() -> paced(periodNanos, n -> write(writer, n))));
            this.threads.add(pool.submit(() -> paced(periodNanos, n -> read())));
        }
    }

    /** The coordinators requests go through from now on. */
    void via(int... nodes) {
        via = nodes.clone();
    }

    private interface Op {
        void run(long n);
    }

    private void paced(long periodNanos, Op op) {
        long next = System.nanoTime();
        for (long n = 0; !stop.get(); n++) {
            op.run(n);
            next += periodNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            } else if (wait < -TimeUnit.SECONDS.toNanos(1)) {
                next = System.nanoTime(); // fell behind (the machine is busy): no burst to catch up
            }
        }
    }

    private int pick() {
        int[] v = via;
        return v[ThreadLocalRandom.current().nextInt(v.length)];
    }

    private void write(int writer, long n) {
        String id = run + "-" + writer + "-" + n;
        byte[] value =
                ("value of " + id + " " + ThreadLocalRandom.current().nextLong()).getBytes(StandardCharsets.UTF_8);
        try {
            Reply r = nodes.apply(pick()).put(id, value, quorum.writeAck(), quorum.writeFrom());
            if (r.status() == 201) {
                acked.put(id, value);
                ackedIds.add(id);
                writesOk.increment();
            } else {
                writesFailed.increment();
                failed("PUT " + r.status());
            }
        } catch (RuntimeException e) { // a node being stopped, or its connection cut
            writesFailed.increment();
            failed("PUT " + e.getClass().getSimpleName());
        }
    }

    private void read() {
        int size = ackedIds.size();
        if (size == 0) {
            return;
        }
        String id = ackedIds.get(ThreadLocalRandom.current().nextInt(size));
        int node = pick();
        try {
            Reply r = nodes.apply(node).get(id, quorum.readAck(), quorum.readFrom());
            judge(id, node, r);
        } catch (RuntimeException e) {
            readsUnavailable.increment();
            failed("GET " + e.getClass().getSimpleName());
        }
    }

    private boolean judge(String id, int node, Reply r) {
        if (r.status() == 200 || r.status() == 404) {
            if (r.status() == 200 && Arrays.equals(r.body(), acked.get(id))) {
                readsOk.increment();
                return true;
            }
            wrong.add(id + " via node " + node + ": " + r + " at " + java.time.Instant.now());
            return true;
        }
        readsUnavailable.increment();
        failed("GET " + r.status());
        return false;
    }

    private void failed(String what) {
        failures.computeIfAbsent(what, k -> new LongAdder()).increment();
    }

    int acknowledged() {
        return acked.size();
    }

    /** Every key acknowledged so far, with its value. */
    Map<String, byte[]> acknowledgedKeys() {
        return Map.copyOf(acked);
    }

    List<String> wrongReads() {
        return List.copyOf(wrong);
    }

    /**
     * Reads back every acknowledged key at 2/3 through these nodes (a key unavailable at first is asked again,
     * up to 5 times); returns the keys that read back wrong or never answered.
     */
    List<String> checkAll(int... through) throws Exception {
        List<String> ids = new ArrayList<>(acked.keySet());
        int workers = 4;
        ExecutorService checkers = Executors.newFixedThreadPool(workers);
        try {
            List<Future<List<String>>> parts = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                int part = w;
                parts.add(checkers.submit(() -> {
                    List<String> bad = new ArrayList<>();
                    for (int k = part; k < ids.size(); k += workers) {
                        String id = ids.get(k);
                        String problem = null;
                        for (int attempt = 0; attempt < 5; attempt++) {
                            int node = through[(k + attempt) % through.length];
                            Reply r;
                            try {
                                r = nodes.apply(node).get(id, quorum.readAck(), quorum.readFrom());
                            } catch (RuntimeException e) {
                                problem = id + " via node " + node + ": " + e.getMessage();
                                continue;
                            }
                            if (r.status() == 200 && Arrays.equals(r.body(), acked.get(id))) {
                                problem = null;
                                break;
                            }
                            problem = id + " via node " + node + ": " + r;
                            if (r.status() == 200 || r.status() == 404) {
                                break; // wrong, not unavailable: no second chance
                            }
                            TimeUnit.MILLISECONDS.sleep(200);
                        }
                        if (problem != null) {
                            bad.add(problem);
                        }
                    }
                    return bad;
                }));
            }
            List<String> bad = new ArrayList<>();
            for (Future<List<String>> f : parts) {
                bad.addAll(f.get(10, TimeUnit.MINUTES));
            }
            return bad;
        } finally {
            checkers.shutdownNow();
        }
    }

    String summary() {
        return String.format(
                "%d writes acknowledged, %d not; %d reads right, %d wrong, %d unavailable%s",
                writesOk.sum(),
                writesFailed.sum(),
                readsOk.sum(),
                wrong.size(),
                readsUnavailable.sum(),
                failures.isEmpty() ? "" : " " + failures);
    }

    long readsRight() {
        return readsOk.sum();
    }

    /** Writes not acknowledged (any answer but 201, or no answer) and reads unavailable (not 200/404, or none). */
    long failedRequests() {
        return writesFailed.sum() + readsUnavailable.sum();
    }

    @Override
    public void close() throws Exception {
        stop.set(true);
        for (Future<?> f : threads) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdownNow();
    }
}
