package dev.dht.node.movement;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.io.Throttle;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.ring.Ring;
import dev.dht.node.storage.RangeCursor;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import dev.dht.node.storage.StoreStats;
import dev.dht.node.topology.StateFile;
import dev.dht.node.topology.TopologyHeader;
import dev.dht.node.topology.TopologyManager;
import dev.dht.node.topology.TopologyState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sending half of a move on one member of S (docs/cluster.md, "What a member of S sends, and to whom"): scans
 * the local records in key order, a slice at a time, and sends each record to the members of T that need it
 * ({@link MovePlan}) in batches ({@code PUT /v0/internal/records}). Every batch of a slice must be acknowledged
 * before the next slice starts; then the slice's end is the resume point (persisted about once a second), so a
 * restart or a failed batch repeats at most a slice, which last-write-wins makes harmless. Throttled to
 * {@link MovementSettings#rateBytesPerSecond} by the node's {@link Throttle}. Runs on the movement thread only.
 */
final class Streamer {
    private static final Logger log = LoggerFactory.getLogger(Streamer.class);
    static final String RECORDS_PATH = "/v0/internal/records";
    /** Records scanned per slice at most (also bounded by bytes: four batches' worth). */
    static final int SLICE_RECORDS = 2_000;
    /** A slice's failed batches are sent again after this pause. */
    static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Store store;
    private final PeerClient client;
    private final HybridLogicalClock clock;
    private final TopologyManager manager;
    private final IntUnaryOperator rf;
    private final MovementSettings settings;
    private final MovementStats stats;
    private final String self;
    private final java.util.function.Predicate<String> forgotten;

    private TopologyState streaming;
    private MovePlan plan;
    private String header;
    private byte[] resume;
    private long persistedAt;
    private final Throttle throttle;

    /** @param rf the replication factor of a set of the given size */
    Streamer(
            Store store,
            PeerClient client,
            HybridLogicalClock clock,
            TopologyManager manager,
            IntUnaryOperator rf,
            MovementSettings settings,
            MovementStats stats,
            String self,
            java.util.function.Predicate<String> forgotten) {
        this.forgotten = forgotten;
        this.store = store;
        this.client = client;
        this.clock = clock;
        this.manager = manager;
        this.rf = rf;
        this.settings = settings;
        this.throttle = new Throttle(settings.rateBytesPerSecond());
        this.stats = stats;
        this.self = self;
    }

    /**
     * Streams this node's share of the joint state s for about budgetNanos. Returns true once the whole scan is
     * sent and acknowledged (the caller marks the node as sent), false when the budget ran out or the state
     * changed (call again).
     */
    boolean stream(TopologyState s, long budgetNanos, BooleanSupplier current) {
        if (!s.equals(streaming)) {
            begin(s);
        }
        long end = System.nanoTime() + budgetNanos;
        while (System.nanoTime() - end < 0) {
            if (!current.getAsBoolean()) {
                return false;
            }
            Boolean finished = slice(current, end);
            if (finished == null) {
                return false; // batches still failing: the caller polls the others meanwhile and calls again
            }
            if (finished) {
                stats.scanFinished = true;
                log.info(
                        "sent every record this node holds for {}: {} records, {} bytes in total so far",
                        s,
                        stats.recordsSent(),
                        stats.bytesSent());
                return true;
            }
        }
        return false;
    }

    private void begin(TopologyState s) {
        streaming = s;
        Ring ringS = new Ring(s.stable().urls(), s.stable().racks());
        Ring ringT = new Ring(s.target().urls(), s.target().racks());
        plan = new MovePlan(ringS, ringT, rf.applyAsInt(ringT.size()), self);
        header = TopologyHeader.request(s, self);
        StateFile progress = manager.progress();
        resume = progress != null && s.equals(progress.state()) ? progress.resumeKey() : null;
        StoreStats st = store.stats();
        long keys = Math.max(0, st.estimatedKeys());
        stats.startScan(keys, Math.max(0, st.liveSstBytes()) + Math.max(0, st.memtableBytes()), 0);
        persistedAt = System.nanoTime();
        log.info(
                "streaming for {} from {} (about {} local records to scan)",
                s,
                resume == null ? "the first key" : "a resume point",
                keys);
    }

    /**
     * One slice: scan, send, wait for every batch. Returns true when the scan reached the end, false when the
     * slice was sent and more follow, null when some batch still fails (the resume point stays: the slice is
     * repeated).
     */
    private Boolean slice(BooleanSupplier current, long end) {
        RecordBatch[] batches = new RecordBatch[plan.targetSize()];
        List<Pending> pending = new ArrayList<>();
        int[] targets = new int[plan.targetSize()];
        byte[] last = null;
        int scanned = 0;
        long buffered = 0;
        boolean more;
        try (RangeCursor cursor = store.range(resume == null ? new byte[0] : resume, null)) {
            while ((more = cursor.next())) {
                byte[] key = cursor.key();
                Record record = cursor.record();
                last = key;
                scanned++;
                int n = plan.targets(key, targets);
                for (int i = 0; i < n; i++) {
                    int t = targets[i];
                    if (forgotten.test(plan.member(t))) {
                        continue; // gone for good: it will be left out by the next move
                    }
                    if (batches[t] == null) {
                        batches[t] = new RecordBatch();
                    }
                    batches[t].add(key, record);
                    buffered += key.length + record.encoded().length;
                    if (batches[t].bytes() >= settings.batchBytes()) {
                        pending.add(send(t, batches[t]));
                        batches[t] = null;
                    }
                }
                if (scanned >= SLICE_RECORDS || buffered >= 4L * settings.batchBytes()) {
                    break;
                }
            }
        }
        for (int t = 0; t < batches.length; t++) {
            if (batches[t] != null && batches[t].count() > 0) {
                pending.add(send(t, batches[t]));
            }
        }
        if (!awaitAll(pending, current, end)) {
            return null;
        }
        stats.scanned += scanned;
        stats.slicesDone++;
        if (!more || last == null) {
            manager.saveResumeKey(streaming, null);
            return true;
        }
        resume = Arrays.copyOf(last, last.length + 1); // just after the last key sent
        if (System.nanoTime() - persistedAt > TimeUnit.SECONDS.toNanos(1)) {
            manager.saveResumeKey(streaming, resume);
            persistedAt = System.nanoTime();
        }
        return false;
    }

    /** One batch in flight to one member, and its records (counted once it is accepted). */
    private record Pending(BatchCall call, int records) {}

    private Pending send(int target, RecordBatch batch) {
        BatchCall call = new BatchCall(
                client,
                clock,
                plan.member(target),
                RECORDS_PATH,
                batch.toBytes(),
                () -> header,
                settings.requestTimeout().toNanos());
        throttle.pace(call.bytes());
        return new Pending(call.go(), batch.count());
    }

    /**
     * Waits for every batch; sends the failed ones again until all are acknowledged (true), or the state changes
     * or the budget ends first (false: the slice will be sent again).
     */
    private boolean awaitAll(List<Pending> pending, BooleanSupplier current, long end) {
        List<Pending> waiting = pending;
        while (true) {
            List<Pending> failed = new ArrayList<>();
            for (Pending p : waiting) {
                boolean ok;
                try {
                    ok = p.call().await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
                if (ok) {
                    stats.recordsSent.add(p.records());
                    stats.bytesSent.add(p.call().bytes());
                } else {
                    failed.add(p);
                }
            }
            if (failed.isEmpty()) {
                stats.waitingFor = null;
                return true;
            }
            String failure = failed.get(0).call().failure();
            stats.waitingFor = "sending to " + failure;
            stats.batchesRetried.add(failed.size());
            log.warn("{} batch(es) not accepted ({}); sending again in 1 s", failed.size(), failure);
            if (System.nanoTime() + RETRY_NANOS - end > 0 || !pause(RETRY_NANOS) || !current.getAsBoolean()) {
                return false;
            }
            for (Pending p : failed) {
                throttle.pace(p.call().bytes());
                p.call().go();
            }
            waiting = failed;
        }
    }

    private static boolean pause(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
