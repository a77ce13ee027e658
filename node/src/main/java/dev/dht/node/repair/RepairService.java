package dev.dht.node.repair;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.replication.ReadGate;
import dev.dht.node.storage.Store;
import dev.dht.node.threads.DaemonThreads;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the repair rounds this node coordinates, on its own thread ({@code dht-repair}): for each replica set it
 * coordinates, a round every interval (or at once when asked), one round at a time, comparing and repairing
 * {@value RepairSettings#ARCS_PER_STEP} arcs per step ({@link Reconciliation}) within the rate, every step as of the
 * start of the round's run (its first start, or its resumption). After each step the
 * arcs are recorded as repaired on every replica of the set (only when every replica took part) and the round's
 * progress is saved, so a restart resumes it. Paused while a move runs, while this node rebuilds, and retried later
 * when a member does not answer (a round never counts as done without every replica).
 */
public final class RepairService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RepairService.class);

    private final Store store;
    private final CurrentRanges current;
    private final RepairHistory history;
    private final RoundLog rounds;
    private final RepairPeers peers;
    private final RepairStats stats;
    private final RepairSettings settings;
    private final HybridLogicalClock clock;
    private final LongSupplier wall;
    private final ReadGate gate;
    /** Where a round hashes and lists this node's arcs (this thread keeps the normal priority: it calls peers). */
    private final LocalScans scans;

    private final Thread thread;
    private final long startedAt;
    /** A first round starts this long after start at the earliest: spreads the members' first rounds. */
    private final long firstDelay;

    private final Set<String> requested = new HashSet<>();
    /** Replica sets whose last round failed, with when to try again (wall ms). */
    private final java.util.Map<String, Long> retryAt = new java.util.HashMap<>();

    private volatile boolean closed;

    RepairService(
            Store store,
            CurrentRanges current,
            RepairHistory history,
            RoundLog rounds,
            RepairPeers peers,
            RepairStats stats,
            RepairSettings settings,
            HybridLogicalClock clock,
            LongSupplier wall,
            ReadGate gate,
            LocalScans scans) {
        this.store = store;
        this.current = current;
        this.history = history;
        this.rounds = rounds;
        this.peers = peers;
        this.stats = stats;
        this.settings = settings;
        this.clock = clock;
        this.wall = wall;
        this.gate = gate;
        this.scans = scans;
        this.startedAt = wall.getAsLong();
        long interval = settings.interval().toMillis();
        this.firstDelay = interval <= 0 ? 0 : ThreadLocalRandom.current().nextLong(Math.min(interval, 600_000) + 1);
        this.thread = DaemonThreads.of("dht-repair", this::run);
    }

    void start() {
        thread.start();
    }

    /** POST /v0/admin/repair: a round of every replica set this node coordinates, as soon as possible. */
    synchronized int requestRounds() {
        RepairRanges r = current.get();
        if (r == null) {
            return -1;
        }
        for (RepairRanges.Group g : r.coordinated()) {
            requested.add(g.key());
            retryAt.remove(g.key());
        }
        notifyAll();
        return r.coordinated().size();
    }

    /** Rounds asked for and not finished yet. */
    synchronized int pending() {
        return requested.size();
    }

    private void run() {
        while (!closed) {
            long pause;
            try {
                pause = step();
            } catch (RuntimeException e) {
                log.error("repair step failed", e);
                pause = settings.requestTimeout().toMillis() * 10;
            }
            if (pause > 0) {
                synchronized (this) {
                    try {
                        wait(Math.min(pause, 60_000)); // requestRounds() wakes it
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    /** Whether the last step found repair paused (only the repair thread reads and writes it). */
    private boolean paused;

    /** Runs one due round, if any; returns how long to wait before looking again (ms). */
    long step() {
        RepairRanges r = current.get();
        if (r == null) {
            stats.problem = current.pausedBecause();
            paused = true;
            return 1000;
        }
        history.use(r);
        String notServing = gate.notServing();
        if (notServing != null) {
            stats.problem = "this node does not coordinate repairs while it " + notServing;
            paused = true;
            return 1000;
        }
        if (paused) { // the pause is over: its reason must not linger on a node that coordinates no set
            paused = false;
            stats.problem = null;
        }
        RepairRanges.Group due = null;
        long next = Long.MAX_VALUE;
        long now = wall.getAsLong();
        synchronized (this) {
            for (RepairRanges.Group g : r.coordinated()) {
                long at = dueAt(r, g, now);
                if (at <= now && (due == null || at < dueAt(r, due, now))) {
                    due = g;
                }
                next = Math.min(next, at);
            }
            requested.retainAll(keys(r.coordinated()));
        }
        if (due == null) {
            return next == Long.MAX_VALUE ? 60_000 : Math.max(100, next - now);
        }
        runRound(r, due);
        return 0;
    }

    private static Set<String> keys(List<RepairRanges.Group> groups) {
        Set<String> out = new HashSet<>();
        for (RepairRanges.Group g : groups) {
            out.add(g.key());
        }
        return out;
    }

    /** When a replica set's next round is due (wall ms). */
    private long dueAt(RepairRanges r, RepairRanges.Group g, long now) {
        Long retry = retryAt.get(g.key());
        if (requested.contains(g.key())) {
            return retry == null ? now - 1 : retry;
        }
        long interval = settings.interval().toMillis();
        if (interval <= 0) {
            return Long.MAX_VALUE;
        }
        RoundLog.Entry e = rounds.get(r.ringId(), g.key());
        if (e.inProgress()) {
            return retry == null ? now - 1 : retry; // resume what a restart or a failure interrupted
        }
        long due = e.lastCompleted() == 0 ? startedAt + firstDelay : e.lastCompleted() + interval;
        return retry == null ? due : Math.max(due, retry);
    }

    private void runRound(RepairRanges r, RepairRanges.Group g) {
        RoundLog.Entry e = rounds.get(r.ringId(), g.key());
        long roundStart = e.inProgress() ? e.startedAt() : wall.getAsLong();
        int next = e.inProgress() ? Math.min(e.next(), g.arcs().size()) : 0;
        long t0 = System.nanoTime();
        // Every step of this run of the round reads the replicas' digests as of its start (one index build per member
        // serves it: RangeSummaries.AsOf), so every step's cutoff is that start's: a version newer than it may be a
        // write still on its way, or one the digests do not hold yet. A round resumed after a failure or a restart
        // reads as of the resumption, not the round's first start (that may be days old after an outage, and the arcs
        // would be recorded as repaired then).
        RangeSummaries.AsOf asOf = new RangeSummaries.AsOf(HybridLogicalClock.of(wall.getAsLong(), 0), clock);
        long cutoff = asOf.at() - (settings.inFlightMillis() << 16);
        if (next == 0) {
            log.info(
                    "repair round of replica set [{}] ({} ranges) starts",
                    g.key(),
                    g.arcs().size());
        } else {
            log.info(
                    "repair round of replica set [{}] resumes at range {} of {}",
                    g.key(),
                    next,
                    g.arcs().size());
        }
        rounds.put(r.ringId(), g.key(), new RoundLog.Entry(e.lastCompleted(), roundStart, next));
        stats.running = g.key();
        stats.runningArcsTotal = g.arcs().size();
        long outOfSync = 0;
        long keys = 0;
        try {
            while (next < g.arcs().size()) {
                if (closed || current.get() != r || gate.notServing() != null) {
                    stats.problem = closed
                            ? null
                            : "round interrupted: "
                                    + (current.get() != r ? "the topology changed" : "this node " + gate.notServing());
                    return; // resumes from the saved point (or starts over on a new member set)
                }
                List<RepairRanges.Arc> arcs =
                        g.arcs().subList(next, Math.min(g.arcs().size(), next + RepairSettings.ARCS_PER_STEP));
                Reconciliation.Result res;
                try {
                    res = new Reconciliation(store, peers, r, g.members(), false, cutoff, asOf, stats, scans)
                            .run(arcs, horizons(arcs));
                } catch (RepairException ex) {
                    fail(g, ex.getMessage());
                    return;
                }
                List<Integer> done = new ArrayList<>(arcs.size());
                for (RepairRanges.Arc a : arcs) {
                    done.add(a.index());
                }
                history.repaired(r.ringId(), done, cutoff);
                tellReplicas(r, g, done, cutoff);
                stats.rangesCompared.add(res.arcs());
                stats.rangesOutOfSync.add(res.arcsOutOfSync());
                stats.keysRepaired.add(res.keysRepaired());
                stats.bytesRepaired.add(res.bytesRepaired());
                stats.keysDeferred.add(res.keysDeferred());
                outOfSync += res.arcsOutOfSync();
                keys += res.keysRepaired();
                next += arcs.size();
                stats.runningArcsDone = next;
                rounds.put(r.ringId(), g.key(), new RoundLog.Entry(e.lastCompleted(), roundStart, next));
            }
            rounds.put(r.ringId(), g.key(), new RoundLog.Entry(roundStart, 0, 0));
            synchronized (this) {
                requested.remove(g.key());
                retryAt.remove(g.key());
            }
            stats.roundsCompleted.increment();
            stats.lastRoundAt = wall.getAsLong();
            stats.lastRoundRangesOutOfSync = outOfSync;
            stats.lastRoundKeysRepaired = keys;
            stats.lastRoundMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            stats.problem = null;
            log.info(
                    "repair round of replica set [{}] done in {} ms: {} ranges, {} out of sync, {} keys repaired",
                    g.key(),
                    stats.lastRoundMillis,
                    g.arcs().size(),
                    outOfSync,
                    keys);
        } finally {
            stats.running = null;
        }
    }

    private long[] horizons(List<RepairRanges.Arc> arcs) {
        long now = wall.getAsLong();
        long[] h = new long[arcs.size()];
        for (int i = 0; i < h.length; i++) {
            h[i] = history.horizon(arcs.get(i).index(), now);
        }
        return h;
    }

    /** Tells the other replicas which arcs were repaired (their sweepers may purge by it). Best effort. */
    private void tellReplicas(RepairRanges r, RepairRanges.Group g, List<Integer> arcs, long at) {
        List<RepairPeers.Call> calls = new ArrayList<>();
        for (String m : g.members()) {
            if (!m.equals(r.self())) {
                calls.add(peers.done(m, r.ringId(), at, arcs));
            }
        }
        for (RepairPeers.Call c : calls) {
            try {
                c.body();
            } catch (RepairException e) {
                // that replica purges a little later: it learns it from the next round
                log.debug("could not record a repair on {}", e.getMessage());
            }
        }
    }

    private void fail(RepairRanges.Group g, String why) {
        stats.roundsFailed.increment();
        stats.problem = "round of [" + g.key() + "] stopped: " + why + "; trying again in "
                + RepairSettings.RETRY.toSeconds() + "s";
        log.warn("repair round of replica set [{}] stopped: {} (it resumes where it stopped)", g.key(), why);
        synchronized (this) {
            retryAt.put(g.key(), wall.getAsLong() + RepairSettings.RETRY.toMillis());
        }
    }

    @Override
    public void close() {
        closed = true;
        DaemonThreads.stop(thread);
    }
}
