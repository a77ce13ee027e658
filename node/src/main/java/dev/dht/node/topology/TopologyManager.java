package dev.dht.node.topology;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.peer.PeerResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the node's topology state (docs/cluster.md, "Scaling"): installs new states (persisted first, then
 * published to the {@link ServedState} that requests read), keeps the node's progress in the current move, and learns
 * newer states from peers. Every change goes through the synchronized {@link #install}; a state is never visible
 * to another node before it is on disk, so a restart never goes back on something a peer relied on.
 *
 * <p>Learning: any header with a newer version (an answer this node got, a request it served on its member port)
 * from a member of the current member list or topology state makes it fetch the sender's state ({@code GET /v0/internal/topology}) on its own thread and adopt it if it follows from its own, or
 * is of a later epoch. One fetch at a time; the next newer header starts the next. A sender that is not a member
 * is never asked: a state is learnt from members only (docs/security.md).
 */
public final class TopologyManager implements PeerClient.AnswerObserver, Learner, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TopologyManager.class);
    /** The topology exchange between members, on the member port. */
    public static final String TOPOLOGY_PATH = "/v0/internal/topology";
    /** Beyond the request timeout before a node counts as drained: the deadline scan and clock granularity. */
    static final long DRAIN_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final String self;
    private final Path dir;
    private final ServedState topology;
    private final long timeoutNanos;
    private final TopologyLearning learning;
    private volatile StateFile file;
    /** The current state's header, computed once per state: it hashes both member lists, O(N). */
    private volatile Headed headed;

    private volatile java.util.function.Consumer<TopologyState> installed = s -> {};
    private volatile long enteredNanos = System.nanoTime();

    /**
     * @param dir   where the state is persisted, or null for a fixed member list (--cluster): then the state
     *              never changes and nothing is learned
     * @param saved the persisted state (null: none, the node must learn or start one)
     */
    private TopologyManager(
            String self,
            Path dir,
            ServedState topology,
            PeerClient client,
            HybridLogicalClock clock,
            Duration requestTimeout,
            StateFile saved,
            Predicate<String> member) {
        this.self = self;
        this.dir = dir;
        this.topology = topology;
        this.timeoutNanos = requestTimeout.toNanos();
        this.file = saved;
        this.learning = new TopologyLearning(this, dir != null, self, client, clock, timeoutNanos, member);
    }

    /** A node on a fixed member list: stable at epoch 0 for its whole life, as the topology was built. */
    public static TopologyManager fixed(
            String self, ServedState topology, PeerClient client, HybridLogicalClock clock, Duration requestTimeout) {
        return new TopologyManager(
                self, null, topology, client, clock, requestTimeout, StateFile.of(topology.servedState()), m -> false);
    }

    /**
     * A node whose state lives in dir: the saved one, or none yet (a new node). Installs it into topology.
     *
     * @param member whether a URL is a member this node may learn from (the member list, and the participants
     *               of its current state)
     */
    public static TopologyManager persistent(
            String self,
            Path dir,
            ServedState topology,
            PeerClient client,
            HybridLogicalClock clock,
            Duration requestTimeout,
            Predicate<String> member)
            throws IOException {
        StateFile saved = StateFile.load(dir);
        TopologyManager m = new TopologyManager(self, dir, topology, client, clock, requestTimeout, saved, member);
        if (saved != null) {
            // no grace after a restart: the others may be streaming already, and only a stale process outside the
            // member list could still send from the stage before
            topology.install(saved.state(), System.nanoTime());
            log.info("resuming topology {} from {}", saved.state(), dir.resolve(StateFile.NAME));
        } else {
            log.info("no topology state in {}: asking the members in the cluster file", dir);
        }
        return m;
    }

    public String self() {
        return self;
    }

    /** Whether the state can change (a cluster file) or not (a fixed list). */
    public boolean changeable() {
        return dir != null;
    }

    /** The state, or null while the node has none. */
    public TopologyState state() {
        StateFile f = file;
        return f == null ? null : f.state();
    }

    /** The state with this node's progress in its move, or null while it has none. */
    public StateFile progress() {
        return file;
    }

    /**
     * At joint: whether no write this node coordinated or accepted under an older state can still be acknowledged
     * (docs/cluster.md, "Stages", 4). After the switch it still accepts announced requests for a grace period of one
     * request timeout, and a request is acknowledged within its timeout or never: so two timeouts (and a margin)
     * after the switch.
     */
    public boolean drained() {
        StateFile f = file;
        if (f == null) {
            return false;
        }
        return f.state().stage() != Stage.JOINT
                || System.nanoTime() - enteredNanos >= 2 * timeoutNanos + DRAIN_MARGIN_NANOS;
    }

    public TopologyReport report() {
        StateFile f = file;
        return new TopologyReport(self, f == null ? null : f.state(), drained(), f != null && f.sent());
    }

    /**
     * The report a poll gets: brief when the poll named this node's very state ({@code known}, its header), else in
     * full (TopologyReport, "brief form").
     */
    public TopologyReport.Wire reportJson(String known) {
        StateFile f = file;
        TopologyReport r = new TopologyReport(self, f == null ? null : f.state(), drained(), f != null && f.sent());
        String header = f == null ? null : headerOf(f.state());
        return header != null && header.equals(known) ? r.toBriefJson(header) : r.toJson();
    }

    /** The current state's header (X-Dht-Topology), or null while the node has none. */
    public String stateHeader() {
        StateFile f = file;
        return f == null ? null : headerOf(f.state());
    }

    private record Headed(TopologyState state, String header) {}

    String headerOf(TopologyState state) {
        Headed h = headed;
        if (h == null || h.state() != state) {
            h = new Headed(state, state.header());
            headed = h;
        }
        return h.header();
    }

    /**
     * Installs a newer state: persists it, then publishes it to requests. Returns false (nothing changed) when it
     * is not newer than the current one, or cannot be persisted.
     */
    public synchronized boolean install(TopologyState next, String why) {
        StateFile current = file;
        if (current != null && next.version() <= current.state().version()) {
            return false;
        }
        if (dir == null && current != null) {
            throw new IllegalStateException("a fixed member list does not change");
        }
        StateFile nextFile = StateFile.of(next);
        if (current != null && !next.moving()) {
            // A move ended here (or was learned as ended): what this node holds beyond the new set goes once every
            // node of the move finalized too. After this node's own joint stage those are S ∪ T; a state learned
            // by a jump (this node was not part of the move) is checked against the new set's members.
            TopologyState was = current.state();
            boolean ownMove =
                    was.moving() && was.epoch() == next.epoch() && next.stable().equals(was.target());
            nextFile = nextFile.withCleanup(
                    true, ownMove ? was.participants() : next.stable().urls());
        }
        try {
            persist(nextFile);
        } catch (IOException e) {
            log.error(
                    "cannot persist topology {}: {}; staying at {}",
                    next,
                    e.getMessage(),
                    current == null ? "none" : current.state());
            return false;
        }
        file = nextFile;
        enteredNanos = System.nanoTime();
        topology.install(next, enteredNanos + timeoutNanos);
        log.info("topology {} -> {}: {}", current == null ? "none" : current.state(), next, why);
        installed.accept(next);
        return true;
    }

    /** Called with each state installed from now on (after it is persisted and served), and the current one. */
    public void onInstall(java.util.function.Consumer<TopologyState> listener) {
        installed = listener;
        TopologyState now = state();
        if (now != null) {
            listener.accept(now);
        }
    }

    /** This node sent everything the current joint stage needs from it. */
    public synchronized void markSent(TopologyState during) {
        updateProgress(during, file.withSent(true));
    }

    /** Every record before key is sent and acknowledged (a restart resumes there). */
    public synchronized void saveResumeKey(TopologyState during, byte[] key) {
        updateProgress(during, file.withResumeKey(key));
    }

    /** The cleanup of the last move ran to its end. */
    public synchronized void cleanupFinished(TopologyState during) {
        updateProgress(during, file.withCleanup(false, List.of()));
    }

    private void updateProgress(TopologyState during, StateFile next) {
        StateFile current = file;
        if (current == null || !current.state().equals(during)) {
            return; // the state moved on meanwhile: this progress belongs to the old one
        }
        try {
            persist(next);
            file = next;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot persist the movement's progress", e);
        }
    }

    private void persist(StateFile f) throws IOException {
        if (dir != null) {
            f.save(dir);
        }
    }

    // ---- learning ----------------------------------------------------------------------------------------------

    /** Every answer of the peer client: a newer state in it is fetched. Runs on the peer I/O thread. */
    @Override
    public void observed(String peer, PeerResponse response) {
        newerState(peer, TopologyHeader.version(response.topology()));
    }

    /**
     * A request from a newer state (or any header, while this node has none): fetch it from the sender if the
     * sender is a member; a header naming anything else is ignored (counted). Never blocks.
     */
    @Override
    public void newerState(String sender, long version) {
        learning.newerState(sender, version);
    }

    /** Headers that named a sender outside the members (never asked). */
    public long notMembers() {
        return learning.notMembers();
    }

    /** Fetches the peer's state and adopts it if it is newer. Blocks up to the request timeout. */
    public void learnFrom(String peer) {
        learning.learnFrom(peer);
    }

    /**
     * Adopts a peer's state if it is newer and follows from this node's: a later stage of the same move, or
     * anything of a later epoch (this node missed steps that the others completed). Returns whether it changed.
     */
    public synchronized boolean adopt(TopologyReport report, String why) {
        TopologyState theirs = report.state();
        if (theirs == null) {
            return false;
        }
        StateFile f = file;
        if (f == null) {
            return install(theirs, why);
        }
        TopologyState mine = f.state();
        if (theirs.version() <= mine.version()) {
            return false;
        }
        if (theirs.epoch() == mine.epoch() && !mine.reachedBy(theirs)) {
            log.error(
                    "{} reports {}, which does not follow from this node's {}: ignored (two moves under one "
                            + "epoch should be impossible: is the proposer rule broken, or the data directory reused?)",
                    report.self(),
                    theirs,
                    mine);
            return false;
        }
        return install(theirs, why);
    }

    /** GET /v0/internal/topology on a peer; null if it does not answer in time or answers garbage. Blocks. */
    public TopologyReport fetch(String peer) {
        return learning.fetch(peer);
    }

    /**
     * GET /v0/internal/topology on a peer, carrying this node's state (so the peer learns it if it is newer);
     * completes with the peer's report, or null if it does not answer in time or answers garbage. Never blocks.
     */
    public CompletableFuture<TopologyReport> fetchAsync(String peer) {
        return learning.fetchAsync(peer);
    }

    @Override
    public void close() {
        learning.close();
    }
}
