package dev.dht.node.movement;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.Membership;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.storage.Store;
import dev.dht.node.threads.DaemonThreads;
import dev.dht.node.topology.StateFile;
import dev.dht.node.topology.TopologyManager;
import dev.dht.node.topology.TopologyReport;
import dev.dht.node.topology.TopologyState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives this node through moves (docs/cluster.md, "Stages and who takes each step"), on its own thread
 * ({@code dht-movement}): a new node asks its peers for the state; the proposer of a stable set starts a move when
 * its cluster file changes; while a move runs, every node polls the members of S ∪ T ({@code GET
 * /v0/internal/topology} on their member ports), adopts newer states, and takes the steps whose conditions it sees met: the proposer
 * switches announced to joint, each member of S streams once the barrier passed, each node finalizes once
 * everyone has sent; after a move, each node cleans up once everyone finalized.
 *
 * <p>Every condition is monotone (a member that reported a stage stays there or goes further), so a node that
 * sees one met may act on it even if its view of the others is already stale.
 */
public final class MovementLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MovementLoop.class);
    /** How long one streaming turn runs before the loop polls the others again. */
    static final long STREAM_TURN_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final TopologyManager manager;
    private final Membership membership;
    private final MovementSettings settings;
    private final MovementStats stats;
    private final Streamer streamer;
    private final Cleanup cleanup;
    private final String self;
    /** Members gone for good (dev.dht.node.forget): left out of the list moved to, and waited for by no step. */
    private final java.util.function.Predicate<String> forgotten;

    private final java.util.function.UnaryOperator<ClusterMembers> withoutForgotten;
    private final Thread thread;
    private volatile boolean closed;
    private volatile boolean cleanupRequested;
    /** The move the per-move figures (received, sent) count from. */
    private TopologyState countedFor;

    /**
     * @param forgotten        members gone for good: no step waits for them, nothing is streamed to them
     * @param withoutForgotten the cluster file's list without them: the list to move to
     */
    public MovementLoop(
            TopologyManager manager,
            Membership membership,
            Store store,
            PeerClient client,
            HybridLogicalClock clock,
            IntUnaryOperator rf,
            MovementSettings settings,
            MovementStats stats,
            java.util.function.Predicate<String> forgotten,
            java.util.function.UnaryOperator<ClusterMembers> withoutForgotten) {
        this.forgotten = forgotten;
        this.withoutForgotten = withoutForgotten;
        this.manager = manager;
        this.membership = membership;
        this.settings = settings;
        this.stats = stats;
        this.self = manager.self();
        this.streamer = new Streamer(store, client, clock, manager, rf, settings, stats, self, forgotten);
        this.cleanup = new Cleanup(store, rf, stats, self, settings.rateBytesPerSecond());
        this.thread = DaemonThreads.of("dht-movement", this::run);
    }

    public void start() {
        thread.start();
    }

    /** POST /v0/admin/cleanup: run the cleanup as soon as it is safe (every member finalized the last move). */
    public void requestCleanup() {
        cleanupRequested = true;
        synchronized (this) {
            notifyAll();
        }
    }

    public boolean cleanupRequested() {
        return cleanupRequested;
    }

    private void run() {
        while (!closed) {
            long pause = settings.pollInterval().toNanos();
            try {
                pause = step();
            } catch (RuntimeException e) {
                log.error("movement step failed; trying again", e);
            }
            if (pause > 0) {
                synchronized (this) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(this, pause);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    /** One step; returns how long to wait before the next (0: at once). */
    long step() {
        StateFile f = manager.progress();
        long poll = settings.pollInterval().toNanos();
        if (f == null) {
            bootstrap();
            return poll;
        }
        TopologyState s = f.state();
        if (!s.equals(countedFor) && (countedFor == null || s.epoch() != countedFor.epoch())) {
            stats.startMove();
        }
        countedFor = s;
        return switch (s.stage()) {
            case STABLE -> stable(f);
            case ANNOUNCED -> announced(s);
            case JOINT -> joint(f);
        };
    }

    // ---- no state yet ---------------------------------------------------------------------------------------

    /** A node without a persisted state learns it from the members in its file, or they all start fresh. */
    private void bootstrap() {
        ClusterMembers file = desired();
        List<String> others = others(file.urls());
        if (others.isEmpty()) {
            manager.install(TopologyState.initial(file), "this node is the only member in its file");
            return;
        }
        Map<String, TopologyReport> reports = poll(others);
        TopologyReport best = null;
        for (TopologyReport r : reports.values()) {
            if (r.state() != null
                    && (best == null || r.state().version() > best.state().version())) {
                best = r;
            }
        }
        if (best != null) {
            manager.adopt(best, "learned at start from " + best.self());
        } else if (reports.size() == others.size()) {
            manager.install(TopologyState.initial(file), "every member in the file is new: a fresh cluster");
        } else {
            List<String> silent = new ArrayList<>(others);
            silent.removeAll(reports.keySet());
            stats.waitingFor = "starting: no state anywhere yet, and " + silent + " not answering";
        }
    }

    // ---- stable ---------------------------------------------------------------------------------------------

    private long stable(StateFile f) {
        TopologyState s = f.state();
        ClusterMembers file = desired();
        if (proposerOf(s).equals(self) && !file.equals(s.stable())) {
            manager.install(s.announce(file), "the cluster file lists " + file.size() + " members: " + file);
            return 0;
        }
        if (!f.cleanupPending() && !cleanupRequested) {
            stats.waitingFor = null;
            return settings.pollInterval().toNanos();
        }
        List<String> among = others(f.cleanupAmong());
        Map<String, TopologyReport> reports = poll(among);
        if (adoptNewer(reports, s)) {
            return 0;
        }
        List<String> notYet = new ArrayList<>();
        for (String m : among) {
            TopologyReport r = reports.get(m);
            if (r == null || r.state() == null || !s.reachedBy(r.state())) {
                notYet.add(m);
            }
        }
        if (!notYet.isEmpty()) {
            stats.waitingFor = "cleanup waits for " + notYet + " to finalize";
            return settings.pollInterval().toNanos();
        }
        stats.waitingFor = "cleanup";
        stats.cleanupRunning = true;
        try {
            if (cleanup.run(s, () -> s.equals(manager.state()) && !closed)) {
                manager.cleanupFinished(s);
                cleanupRequested = false;
            }
        } finally {
            stats.cleanupRunning = false;
            stats.waitingFor = null;
        }
        return 0;
    }

    // ---- announced ------------------------------------------------------------------------------------------

    private long announced(TopologyState s) {
        Map<String, TopologyReport> reports = poll(others(s.participants()));
        if (adoptNewer(reports, s)) {
            return 0;
        }
        if (!proposerOf(s).equals(self)) {
            stats.waitingFor = "the proposer (" + proposerOf(s) + ") to start the joint stage";
            return settings.pollInterval().toNanos();
        }
        ClusterMembers file = desired();
        if (file.equals(s.stable())) {
            manager.install(s.abort(), "the cluster file is back to the stable set: the move is called off");
            return 0;
        }
        if (!file.equals(s.target())) {
            manager.install(
                    s.reannounce(file),
                    "the cluster file changed again before anything moved: now " + file.size() + " members: " + file);
            return 0;
        }
        return installWhenNone(
                missing(s, reports, r -> s.equals(r.state())),
                s::joint,
                "every member of S and T knows the move",
                "members to learn the move: ");
    }

    // ---- joint ----------------------------------------------------------------------------------------------

    private long joint(StateFile f) {
        TopologyState s = f.state();
        Map<String, TopologyReport> reports = poll(others(s.participants()));
        if (adoptNewer(reports, s)) {
            return 0;
        }
        List<String> notDrained = missing(s, reports, r -> beyond(s, r.state()) || s.equals(r.state()) && r.drained());
        if (!manager.drained()) {
            notDrained.add(0, self);
        }
        if (!notDrained.isEmpty()) {
            stats.waitingFor = "barrier: waiting for " + notDrained + " to be at the joint stage and drained";
            return settings.pollInterval().toNanos();
        }
        if (!f.sent()) {
            if (!s.stable().contains(self)) {
                stats.scanFinished = true;
                manager.markSent(s); // nothing to send: this node is new in T
                return 0;
            }
            stats.waitingFor = null;
            boolean done = streamer.stream(s, STREAM_TURN_NANOS, () -> s.equals(manager.state()) && !closed);
            if (done) {
                manager.markSent(s);
                return 0;
            }
            return stats.waitingFor != null ? Streamer.RETRY_NANOS : 0; // a receiver fails: poll, wait, retry
        }
        return installWhenNone(
                missing(s, reports, r -> beyond(s, r.state()) || s.equals(r.state()) && r.sent()),
                s::finish,
                "every member of S and T has sent its records",
                "members still sending: ");
    }

    /**
     * A stage's last step: once no member is left waiting, installs the next state (0: step again at once); else
     * says whom it waits for and polls again after the poll interval.
     */
    private long installWhenNone(List<String> waiting, Supplier<TopologyState> next, String why, String waitingFor) {
        if (waiting.isEmpty()) {
            manager.install(next.get(), why);
            return 0;
        }
        stats.waitingFor = waitingFor + waiting;
        return settings.pollInterval().toNanos();
    }

    // ---- helpers --------------------------------------------------------------------------------------------

    /** The first member of the stable set in sorted order: the only node that starts or calls off a move. */
    static String proposer(TopologyState s) {
        return s.stable().urls().get(0);
    }

    /** {@link #proposer}, skipping forgotten members: a dead proposer must not block every move. */
    String proposerOf(TopologyState s) {
        for (String m : s.stable().urls()) {
            if (!forgotten.test(m)) {
                return m;
            }
        }
        return proposer(s);
    }

    /** The list to move to: the cluster file's, without the forgotten members. */
    private ClusterMembers desired() {
        return withoutForgotten.apply(membership.current());
    }

    /** Whether a reported state is past s in s's own lineage (finalized it, or a later epoch). */
    static boolean beyond(TopologyState s, TopologyState reported) {
        return reported != null && reported.version() > s.version() && s.reachedBy(reported);
    }

    private List<String> missing(
            TopologyState s, Map<String, TopologyReport> reports, java.util.function.Predicate<TopologyReport> ok) {
        List<String> out = new ArrayList<>();
        for (String m : others(s.participants())) {
            TopologyReport r = reports.get(m);
            if (r == null || r.state() == null || !ok.test(r)) {
                out.add(r == null ? m + " (no answer)" : m);
            }
        }
        return out;
    }

    /** Adopts the newest state among the reports if it is newer than s; true if the state changed. */
    private boolean adoptNewer(Map<String, TopologyReport> reports, TopologyState s) {
        TopologyReport best = null;
        for (TopologyReport r : reports.values()) {
            if (r.state() != null
                    && r.state().version() > s.version()
                    && (best == null || r.state().version() > best.state().version())) {
                best = r;
            }
        }
        return best != null && manager.adopt(best, "learned from " + best.self());
    }

    private List<String> others(List<String> members) {
        List<String> out = new ArrayList<>(members);
        out.remove(self);
        out.removeIf(forgotten); // gone for good: no step waits for them
        return out;
    }

    /** Asks every member at once for its state; the answers that came within the request timeout. */
    Map<String, TopologyReport> poll(List<String> members) {
        Map<String, CompletableFuture<TopologyReport>> asked = new LinkedHashMap<>();
        for (String m : members) {
            asked.put(m, manager.fetchAsync(m));
        }
        Map<String, TopologyReport> out = new LinkedHashMap<>();
        for (Map.Entry<String, CompletableFuture<TopologyReport>> e : asked.entrySet()) {
            TopologyReport r;
            try {
                // every call ends by its deadline; the margin covers the client's deadline scan
                r = e.getValue().get(settings.requestTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return out;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
                r = null;
            }
            if (r != null) {
                out.put(e.getKey(), r);
            }
        }
        return out;
    }

    @Override
    public void close() {
        closed = true;
        DaemonThreads.stop(thread);
    }
}
