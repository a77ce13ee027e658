package dev.dht.node.replication.choice;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one peer's recent answers say about it, from the coordinator's calls (reads and writes): how long its reads
 * take (a decaying histogram, {@link LatencyEstimate}), whether it owes answers and since when, and how many calls
 * failed in a row. From these, its {@link PeerState} at any moment and the delay after which a read stops waiting
 * for it.
 *
 * <p>Silence is the signal that notices a paused or hung peer within a few requests: the peer has calls
 * outstanding and has answered nothing since {@code waitingSince}. A paused process answers nothing at all, so no
 * latency sample ever shows it; its silence grows from the moment it stops. The first answer ends it. Calls sent
 * before a peer came back from {@link PeerState#AVOIDED} are not latency samples: the backlog a resumed peer
 * answers in one burst would otherwise read as seconds-long answers and keep it ranked slow after it recovered.
 *
 * <p>Every caller must pair one {@link #sent} with exactly one {@link #answered} or {@link #failed}: the peer
 * client calls back exactly once per call.
 */
public final class PeerHealth {
    /** Failures in a row (refused, reset, timed out, answered 5xx) after which the peer is avoided. */
    static final int FAILURES_TO_AVOID = 3;

    private static final long NONE = Long.MIN_VALUE;

    private final String url;
    private final ReplicaChoice choice;
    private final LatencyEstimate reads = new LatencyEstimate();

    private int inflight; // guarded by this
    /** Since when the peer owes an answer and gave none (NONE: it owes nothing unanswered since its last one). */
    private volatile long waitingSince = NONE;

    private volatile int failuresInRow;
    /** Calls sent before this came back from AVOIDED: their answer times are not samples. */
    private volatile long returnedAt = NONE;

    private volatile boolean slowByLatency;
    private long lastProbe = NONE; // guarded by this
    private boolean probing; // guarded by this

    private final LongAdder readCalls = new LongAdder();
    private final LongAdder probes = new LongAdder();
    private final LongAdder backups = new LongAdder();

    PeerHealth(String url, ReplicaChoice choice) {
        this.url = url;
        this.choice = choice;
    }

    public String url() {
        return url;
    }

    /** A call to the peer is about to be sent at {@code now}; returns {@code now}, the call's send time. */
    public long sent(long now) {
        synchronized (this) {
            inflight++;
            if (waitingSince == NONE) {
                waitingSince = now;
            }
        }
        return now;
    }

    /**
     * The peer answered a call sent at {@code sentAt}.
     *
     * @param read    a replica read: its time is a sample of the peer's read latency
     * @param refused a 5xx answer (overloaded, shutting down): it answered, and counts as a failure
     */
    public void answered(long sentAt, long now, boolean read, boolean refused) {
        boolean sample;
        synchronized (this) {
            boolean wasAvoided = state(now) == PeerState.AVOIDED;
            inflight--;
            failuresInRow = refused ? failuresInRow + 1 : 0;
            // it is alive: what it still owes counts from now
            waitingSince = inflight > 0 ? now : NONE;
            if (wasAvoided && !refused) {
                returnedAt = now;
            }
            sample = read && !refused && (returnedAt == NONE || sentAt - returnedAt > 0);
        }
        if (sample) {
            reads.record(now - sentAt, now);
            choice.sampled(now);
        }
    }

    /**
     * A call failed (timeout, refused, reset, saturated). The silence goes on: a peer that never answers stays
     * silent whether its calls are outstanding or failed.
     */
    public void failed(long now) {
        synchronized (this) {
            inflight--;
            failuresInRow++;
            if (waitingSince == NONE) {
                waitingSince = now; // cannot happen after a sent(); kept so that a failure is never forgotten
            }
        }
    }

    /** The peer's state at {@code now} (System.nanoTime scale). */
    public PeerState state(long now) {
        if (failuresInRow >= FAILURES_TO_AVOID) {
            return PeerState.AVOIDED;
        }
        long since = waitingSince;
        long silence = since == NONE ? 0 : now - since;
        long delay = backupDelayNanos();
        if (silence >= choice.avoidAfterNanos(delay)) {
            return PeerState.AVOIDED;
        }
        if (silence >= delay || slowerThanTheFastest()) {
            return PeerState.SLOW;
        }
        return PeerState.RESPONSIVE;
    }

    /**
     * Whether its median read is well above the fastest peer's: in above {@link ReplicaChoice#SLOW_RATIO} times
     * it plus {@link ReplicaChoice#SLOW_MARGIN_NANOS}, out again below {@link ReplicaChoice#RESPONSIVE_RATIO}
     * times (the gap keeps two peers of similar speed from trading places on noise).
     */
    private boolean slowerThanTheFastest() {
        long mine = reads.p50();
        long best = choice.fastestMedianNanos();
        if (mine < 0 || best < 0) {
            return slowByLatency;
        }
        boolean slow = slowByLatency;
        if (!slow && mine > ReplicaChoice.SLOW_RATIO * best + ReplicaChoice.SLOW_MARGIN_NANOS) {
            slowByLatency = slow = true;
        } else if (slow && mine < ReplicaChoice.RESPONSIVE_RATIO * best + ReplicaChoice.SLOW_MARGIN_NANOS) {
            slowByLatency = slow = false;
        }
        return slow;
    }

    /**
     * How long a read waits for this peer before it asks another replica as well: the peer's recent 99th
     * percentile, within the choice's floor and ceiling; the ceiling while too few answers were seen.
     */
    public long backupDelayNanos() {
        long p99 = reads.p99();
        return p99 < 0 ? choice.ceilingNanos() : Math.max(choice.floorNanos(), Math.min(choice.ceilingNanos(), p99));
    }

    /** The median of the peer's recent reads in nanoseconds, or -1 while too few were seen. */
    public long medianNanos() {
        return reads.p50();
    }

    /** The 99th percentile of the peer's recent reads in nanoseconds, or -1 while too few were seen. */
    public long p99Nanos() {
        return reads.p99();
    }

    /**
     * Whether a read should also ask this peer now, as a probe it does not wait for: the peer is avoided or slow
     * (so reads do not ask it, and nothing else would show that it recovered), no probe of it is outstanding, and
     * the last was sent at least {@link ReplicaChoice#PROBE_INTERVAL_NANOS} ago. True claims the probe: the caller
     * sends it and calls {@link #probeDone()} when it completes or fails.
     */
    public boolean claimProbe(long now) {
        PeerState s = state(now);
        if (s == PeerState.RESPONSIVE || (s == PeerState.SLOW && !slowByLatency && failuresInRow == 0)) {
            return false; // responsive, or slow only for owing answers that are coming (or will time out)
        }
        synchronized (this) {
            if (probing || (lastProbe != NONE && now - lastProbe < ReplicaChoice.PROBE_INTERVAL_NANOS)) {
                return false;
            }
            probing = true;
            lastProbe = now;
        }
        probes.increment();
        return true;
    }

    public synchronized void probeDone() {
        probing = false;
    }

    /** A replica read was sent to this peer (probes included). */
    public void readSent() {
        readCalls.increment();
    }

    /** A read stopped waiting for this peer and asked the other replicas. */
    public void backedUp() {
        backups.increment();
    }

    public long readCalls() {
        return readCalls.sum();
    }

    public long probes() {
        return probes.sum();
    }

    public long backups() {
        return backups.sum();
    }

    @Override
    public String toString() {
        return url + " " + state(System.nanoTime()) + " p50 " + reads.p50() + " p99 " + reads.p99();
    }
}
