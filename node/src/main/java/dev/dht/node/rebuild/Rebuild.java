package dev.dht.node.rebuild;

import dev.dht.node.config.Units;
import dev.dht.node.http.AdminCalls;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.Responses;
import dev.dht.node.json.Json;
import dev.dht.node.repair.RangePull;
import dev.dht.node.repair.RepairException;
import dev.dht.node.replication.ReadGate;
import dev.dht.node.storage.SideTable;
import dev.dht.node.threads.DaemonThreads;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilding a member whose data is gone or too old (docs/cluster.md, "Rebuild"). A node rebuilds when it
 * <ul>
 *   <li>starts on a new data directory while other members hold data (its volume was lost: a deleted PVC, a
 *       dead disk). Empty everywhere means a new cluster, and it serves at once;</li>
 *   <li>was down longer than the tombstone grace (its last heartbeat is older);</li>
 *   <li>is told to ({@code POST /v0/admin/rebuild}).</li>
 * </ul>
 * Meanwhile it accepts writes but closes its {@link ReadGate}: replica reads get 503 (coordinators count it as
 * a missing replica) and its own copy does not count when it coordinates. It pulls every arc it replicates from
 * every other replica, each key's newest version ({@link RangePull}), saving its progress after each step, so a
 * restart resumes; only when all are pulled does it serve reads. A rebuild that cannot reach every other replica of
 * a range waits and says so ({@code waitingFor}) rather than serve a copy that may miss acknowledged writes.
 */
public final class Rebuild implements ReadGate, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Rebuild.class);
    static final int ARCS_PER_STEP = 64;
    private static final long RETRY_MILLIS = 2000;
    private static final long DECIDING_RETRY_MILLIS = 100;

    private final SideTable table;
    private final LongSupplier wall;
    private final long heartbeatMillis;
    private final Thread thread;
    private final AtomicLong keysReceived = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();
    private RangePull pull;
    private volatile RebuildState state;
    private volatile int arcsTotal;
    private volatile String waitingFor;
    private volatile long finishedAt;
    /** Wall ms the last finished rebuild started (kept for the status once its state is gone). */
    private volatile long lastStartedAt;

    private volatile boolean closed;

    /**
     * Decides at start, before the node serves anything, whether it must rebuild (and persists that).
     *
     * @param newDirectory the store found no database in its directory (new, or its content lost)
     * @param members     how many members the node's list has (a single node never rebuilds)
     */
    public Rebuild(SideTable table, boolean newDirectory, int members, Duration grace, LongSupplier wall) {
        this.table = table;
        this.wall = wall;
        this.heartbeatMillis = Math.max(1000, Math.min(60_000, grace.toMillis() / 10));
        long now = wall.getAsLong();
        RebuildState saved = RebuildState.load(table);
        long lastBeat = RebuildState.heartbeat(table);
        if (saved != null) {
            state = saved;
            log.info("resuming: {} ({}), {} ranges done", saved.phase(), saved.reason(), saved.next());
        } else if (members > 1 && newDirectory) {
            state = new RebuildState(RebuildState.DECIDING, "started on a new data directory", now, null, 0);
            state.save(table);
        } else if (members > 1 && lastBeat > 0 && now - lastBeat > grace.toMillis()) {
            state = new RebuildState(
                    RebuildState.REBUILDING,
                    "down for " + Units.formatDuration(Duration.ofMillis(now - lastBeat))
                            + ", longer than --tombstone-grace ("
                            + Units.formatDuration(grace) + ")",
                    now,
                    null,
                    0);
            state.save(table);
            log.warn("this node was down longer than the tombstone grace: it does not serve reads until it has "
                    + "pulled every range from the other replicas");
        }
        RebuildState.beat(table, now);
        this.thread = DaemonThreads.of("dht-rebuild", this::run);
    }

    /** Starts the rebuild's thread (heartbeats, and the rebuild itself when there is one). */
    public void start(RangePull pull) {
        this.pull = pull;
        thread.start();
    }

    @Override
    public String notServing() {
        RebuildState s = state;
        if (s == null) {
            return null;
        }
        return RebuildState.DECIDING.equals(s.phase())
                ? "is starting on a new data directory and asking the other members whether the cluster is new"
                : "is rebuilding (" + s.reason() + ")";
    }

    private void run() {
        long nextBeat = 0;
        while (!closed) {
            long now = wall.getAsLong();
            if (now >= nextBeat) {
                RebuildState.beat(table, now);
                nextBeat = now + heartbeatMillis;
            }
            long pause;
            try {
                pause = step();
            } catch (RuntimeException e) {
                log.error("rebuild step failed", e);
                pause = RETRY_MILLIS;
            }
            if (pause > 0) {
                synchronized (this) {
                    try {
                        wait(Math.min(pause, heartbeatMillis));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    /**
     * Why GET /v0/status says not ready: while deciding (members of a new cluster start together and decide within
     * a moment of each other; a node that no peer answers cannot tell, and stays unready), never while rebuilding
     * (it serves writes and coordinates then: the operator shows it as Rebuilding).
     */
    public String notReady() {
        RebuildState s = state;
        return s != null && RebuildState.DECIDING.equals(s.phase()) ? notServing() : null;
    }

    /** One step; returns how long to wait before the next (ms). */
    long step() {
        RebuildState s = state;
        if (s == null) {
            return heartbeatMillis;
        }
        if (RebuildState.DECIDING.equals(s.phase()) && pull.joining()) {
            log.info("a new data directory, new in the target set of a move: the move brings its data");
            finish(null);
            return 0;
        }
        RangePull.Plan plan = pull.plan();
        if (plan == null) {
            waitingFor = pull.pausedBecause();
            return DECIDING_RETRY_MILLIS;
        }
        arcsTotal = plan.arcs();
        if (RebuildState.DECIDING.equals(s.phase())) {
            return decide(s, plan);
        }
        if (!plan.ringId().equals(s.ringId())) {
            s = s.at(plan.ringId(), 0); // a new member set: its arcs, from the first
            s.save(table);
            state = s;
        }
        if (s.next() >= plan.arcs()) {
            finish(s);
            return 0;
        }
        try {
            RangePull.Pulled p = pull.pull(plan.ringId(), s.next(), s.next() + ARCS_PER_STEP);
            keysReceived.addAndGet(p.keys());
            bytesReceived.addAndGet(p.bytes());
        } catch (RepairException e) {
            waitingFor = "cannot pull from " + e.getMessage() + ": a rebuild needs every other replica of a range,"
                    + " and waits for it";
            log.warn("rebuild waits: {}", waitingFor);
            return RETRY_MILLIS;
        }
        waitingFor = null;
        s = s.at(plan.ringId(), Math.min(plan.arcs(), s.next() + ARCS_PER_STEP));
        s.save(table);
        state = s;
        return 0;
    }

    /** An empty store: rebuild if any other member holds data; a new cluster if the ones that answer hold none. */
    private long decide(RebuildState s, RangePull.Plan plan) {
        List<String> others = plan.others();
        if (others.isEmpty()) {
            finish(s);
            return 0;
        }
        Map<String, RangePull.PeerState> answers = pull.peerStates(others);
        if (answers.isEmpty()) {
            waitingFor = "no other member answers: cannot tell whether the cluster is new or this node lost its data";
            return DECIDING_RETRY_MILLIS; // members of a new cluster start together: ask again soon
        }
        boolean dataElsewhere = answers.values().stream().anyMatch(a -> !a.empty());
        if (!dataElsewhere) {
            log.info(
                    "a new data directory, and every member that answered ({} of {}) is empty too: a new "
                            + "cluster, nothing to rebuild",
                    answers.size(),
                    others.size());
            finish(null);
            return 0;
        }
        RebuildState next = new RebuildState(
                RebuildState.REBUILDING,
                "started on a new data directory while" + " other members hold data",
                s.startedAt(),
                plan.ringId(),
                0);
        next.save(table);
        state = next;
        waitingFor = null;
        log.warn(
                "this node starts on a new data directory while other members hold data (its volume was lost?): it accepts writes "
                        + "but serves no read until it has pulled its {} ranges from the other replicas",
                plan.arcs());
        return 0;
    }

    private void finish(RebuildState s) {
        RebuildState.clear(table);
        if (s != null) { // before the state goes, so that the status never shows a finished rebuild without them
            lastStartedAt = s.startedAt();
            finishedAt = wall.getAsLong();
        }
        state = null;
        waitingFor = null;
        if (s != null) {
            log.info(
                    "rebuild done: {} ranges, {} keys ({}) received in {}; serving reads",
                    s.next(),
                    keysReceived.get(),
                    Units.formatSize(bytesReceived.get()),
                    Units.formatDuration(Duration.ofMillis(finishedAt - s.startedAt())));
        }
    }

    /** POST /v0/admin/rebuild: pull everything again from the other replicas (reads closed meanwhile). */
    public synchronized boolean request() {
        if (state != null) {
            return false;
        }
        RebuildState s =
                new RebuildState(RebuildState.REBUILDING, "asked (POST /v0/admin/rebuild)", wall.getAsLong(), null, 0);
        s.save(table);
        state = s;
        notifyAll();
        return true;
    }

    /** The rebuild's part of GET /v0/admin/repair (the operator reads it: fields may be added, never changed). */
    public Map<String, Object> report() {
        RebuildState s = state;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", s == null ? "ready" : s.phase());
        m.put("reason", s == null ? null : s.reason());
        m.put("rangesDone", s == null ? 0 : s.next());
        m.put("rangesTotal", arcsTotal);
        m.put("keysReceived", keysReceived.get());
        m.put("bytesReceived", bytesReceived.get());
        m.put("startedAt", s == null ? lastStartedAt : s.startedAt());
        m.put("finishedAt", finishedAt);
        m.put("waitingFor", s == null ? null : waitingFor);
        return m;
    }

    public boolean rebuilding() {
        return state != null;
    }

    public Map<String, AdminHandler> handlers() {
        return Map.of("/v0/admin/rebuild", AdminCalls.handler(null, (request, responder) -> {
            if (!request()) {
                responder.send(Responses.json(
                        Responses.CONFLICT,
                        Json.write(Map.of("error", "a rebuild is already running: see GET /v0/admin/repair"))));
                return;
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("rebuilding", true);
            out.put("note", "reads are refused until every range is pulled; see GET /v0/admin/repair");
            responder.send(Responses.json(Responses.ACCEPTED, Json.write(out)));
        }));
    }

    @Override
    public void close() {
        closed = true;
        DaemonThreads.stop(thread);
    }
}
