package dev.dht.node.replication.choice;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Which replicas a quorum read asks, and how long it waits for each: the coordinator's memory of how every peer
 * has been answering ({@link PeerHealth}, one per peer). Cassandra's dynamic snitch and {@code speculative_retry}
 * at the observed p99 do the same job; a paused replica is noticed from its silence, as the phi-accrual detector
 * notices a missing heartbeat, rather than from samples it never sends.
 *
 * <ul>
 *   <li>{@link #prefer}: of the replicas in the key's order, the responsive ones first, then the slow, then the
 *       avoided; within a state the key's order stays (a key's reads keep going to the same replicas and their
 *       caches). What a read returns does not change: any {@code ack} replicas meet every quorum write.</li>
 *   <li>{@link #probe}: a read also asks one avoided (or slow) replica now and then, without waiting for it, so
 *       the replica is seen answering again as soon as it does.</li>
 *   <li>{@link PeerHealth#backupDelayNanos()}: a read waits for a replica about its recent 99th percentile
 *       ({@link #floorNanos} to {@link #ceilingNanos}) before it asks the rest.</li>
 * </ul>
 * Writes go to every replica whatever their state; their answers (and failures) keep the states current.
 */
public final class ReplicaChoice {
    /** Shortest backup delay: below it a read would back up on noise (the peer client checks marks every 5 ms). */
    public static final long FLOOR_NANOS = 2_000_000L;
    /** A silent peer is avoided after 4 backup delays of silence, and never sooner than this. */
    static final long AVOID_MIN_NANOS = 50_000_000L;

    static final int AVOID_AFTER_DELAYS = 4;
    /** An avoided or slow peer gets at most one probe in flight, one per this interval. */
    static final long PROBE_INTERVAL_NANOS = 100_000_000L;
    /** Slow by latency: median above SLOW_RATIO x the fastest peer's + SLOW_MARGIN; responsive below RESPONSIVE_RATIO x. */
    static final long SLOW_RATIO = 4;

    static final long RESPONSIVE_RATIO = 2;
    static final long SLOW_MARGIN_NANOS = 2_000_000L;
    private static final long FASTEST_REFRESH_NANOS = 50_000_000L;

    private final long ceilingNanos;
    private final ConcurrentHashMap<String, PeerHealth> peers = new ConcurrentHashMap<>();
    private volatile long fastestMedian = -1;
    private volatile long fastestRefreshed = Long.MIN_VALUE;
    private final LongAdder backupsSent = new LongAdder();
    private final LongAdder backupsWon = new LongAdder();

    /** @param requestTimeout the longest backup delay is a tenth of it (the fixed delay before this existed) */
    public ReplicaChoice(Duration requestTimeout) {
        this.ceilingNanos = Math.max(FLOOR_NANOS, requestTimeout.toNanos() / 10);
    }

    public PeerHealth peer(String url) {
        PeerHealth p = peers.get(url);
        return p != null ? p : peers.computeIfAbsent(url, u -> new PeerHealth(u, this));
    }

    /** Every peer called so far. */
    public Collection<PeerHealth> peers() {
        return peers.values();
    }

    public long floorNanos() {
        return FLOOR_NANOS;
    }

    public long ceilingNanos() {
        return ceilingNanos;
    }

    /** Silence after which a peer with this backup delay is avoided. */
    long avoidAfterNanos(long backupDelayNanos) {
        return Math.max(AVOID_MIN_NANOS, AVOID_AFTER_DELAYS * backupDelayNanos);
    }

    /** The lowest median read time among the peers, or -1 if none has enough samples. */
    long fastestMedianNanos() {
        return fastestMedian;
    }

    /** A latency sample was recorded: refresh the fastest median now and then. */
    void sampled(long now) {
        long last = fastestRefreshed;
        if (last != Long.MIN_VALUE && now - last < FASTEST_REFRESH_NANOS) {
            return;
        }
        fastestRefreshed = now;
        long best = -1;
        for (PeerHealth p : peers.values()) {
            long m = p.medianNanos();
            if (m >= 0 && (best < 0 || m < best)) {
                best = m;
            }
        }
        fastestMedian = best;
    }

    /**
     * Reorders {@code order[start..]} (slots into {@code urls}, in the key's order) so that responsive replicas
     * come first, then slow, then avoided, keeping the key's order within each state.
     */
    public void prefer(String[] urls, int[] order, int start, long now) {
        int n = order.length - start;
        if (n <= 1) {
            return;
        }
        if (n == 2) { // the common case (3 replicas, one of them the coordinator): no array
            int a = order[start];
            int b = order[start + 1];
            if (peer(urls[a]).state(now).ordinal() > peer(urls[b]).state(now).ordinal()) {
                order[start] = b;
                order[start + 1] = a;
            }
            return;
        }
        int[] rank = new int[urls.length];
        boolean any = false;
        for (int i = start; i < order.length; i++) {
            int r = peer(urls[order[i]]).state(now).ordinal();
            rank[order[i]] = r;
            any |= r != 0;
        }
        if (any) {
            stableSortByRank(order, start, rank);
        }
    }

    /** Insertion sort of {@code order[start..]} by {@code rank[slot]}, stable (a handful of replicas). */
    static void stableSortByRank(int[] order, int start, int[] rank) {
        for (int i = start + 1; i < order.length; i++) {
            int slot = order[i];
            int j = i - 1;
            while (j >= start && rank[order[j]] > rank[slot]) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = slot;
        }
    }

    /**
     * If one of the replicas a read would not ask ({@code order[asked..]}) is due for a probe, claims it and moves
     * it to {@code order[asked]} (the others keep their order), and returns its slot; else -1.
     */
    public int probe(String[] urls, int[] order, int asked, long now) {
        for (int i = asked; i < order.length; i++) {
            int slot = order[i];
            if (peer(urls[slot]).claimProbe(now)) {
                System.arraycopy(order, asked, order, asked + 1, i - asked);
                order[asked] = slot;
                return slot;
            }
        }
        return -1;
    }

    /** A read stopped waiting for a slow replica and asked the rest. */
    public void backupSent() {
        backupsSent.increment();
    }

    /** A read's quorum was completed by a replica it asked as a backup. */
    public void backupWon() {
        backupsWon.increment();
    }

    public long backupsSent() {
        return backupsSent.sum();
    }

    public long backupsWon() {
        return backupsWon.sum();
    }
}
