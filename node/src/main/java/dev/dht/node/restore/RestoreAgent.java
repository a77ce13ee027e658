package dev.dht.node.restore;

import dev.dht.node.backup.BackupAgent;
import dev.dht.node.backup.BackupStore;
import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.io.Throttle;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.replication.Topology;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StoreException;
import dev.dht.node.threads.DaemonThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's share of a restore (docs/operations.md, "Back up and restore"). A backup holds one part per member of
 * the cluster it came from, each a whole RocksDB checkpoint; share {@code j} of {@code n} is every part whose index
 * is {@code j} modulo {@code n}, so each backed-up part is read by exactly one node of the new cluster, whatever its
 * size. For each part the node downloads the files (checked against their content names, decrypted), opens them
 * read-only as the database they were, and sends every record, tombstones included and never re-stamped, to the
 * owners of its key in this cluster's ring ({@link RecordSender}); the owners keep the newest version of each key
 * (every copy of a record at the old replication factor arrives, so a write acknowledged by a quorum wins).
 *
 * <p>Into a new cluster (every member waits for the restore: {@link RestoreGate}) the owners keep what they receive
 * in their {@link Inbox} while the shares are sent; once every member has sent its share the operator calls
 * {@link #finish} and each member loads its inbox whole (phase {@code loading}, then {@code loaded}); a member serves
 * once every member has loaded ({@link RestoreLearner} asks them), so no write can reach a member that has not.
 * Into a live cluster the owners apply each record as it comes ({@code applyIfNewer}).
 *
 * <p>Resumable: the parts done and the position in the part being sent (after every acknowledged slice, about once
 * a second) are persisted in {@code <data-dir>/restore/job.json}; a restarted node goes on from there.
 *
 * <p>Into a live cluster (one that serves clients) a backup older than the tombstone grace is refused: a key deleted
 * after the backup, whose tombstone has been purged since, would come back.
 */
public final class RestoreAgent implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RestoreAgent.class);
    public static final String STATUS_PATH = "/v0/admin/restore";
    public static final String MEMBER_STATUS_PATH = "/v0/internal/restore";

    private final RocksStore store;
    private final Inbox inbox;
    private final BackupStore backups;
    private final RestoreGate gate;
    private final Path dir;
    private final RecordSender sender;
    private final RestoreShare shareRun;
    private final ExecutorService thread;
    private final java.util.concurrent.ScheduledExecutorService learner;

    private volatile RestoreJob job;
    private volatile String phase = "idle";
    private volatile String error;
    /** The last failure was the load's (a new finish loads again), not the share's (it must be asked for again). */
    private volatile boolean loadFailed;

    private volatile boolean closed;

    /**
     * @param backups null when no object store is configured
     */
    public RestoreAgent(
            RocksStore store,
            Path dataDir,
            BackupStore backups,
            RestoreGate gate,
            Topology topology,
            PeerClient client,
            HybridLogicalClock clock,
            String self,
            Throttle throttle,
            Duration grace,
            int batchBytes,
            Duration requestTimeout,
            LongSupplier wall) {
        this.store = store;
        this.backups = backups;
        this.gate = gate;
        this.dir = dataDir.resolve(RestoreGate.DIR);
        this.sender = new RecordSender(store, topology, client, clock, self, batchBytes, requestTimeout.toNanos());
        this.inbox = new Inbox(
                dir, clock::observe, Inbox.sortBytes(Runtime.getRuntime().maxMemory()));
        Consumer<RestoreJob> progress = j -> {
            job = j;
            save(j, "running", null);
        };
        this.shareRun = new RestoreShare(
                backups,
                gate,
                topology,
                grace,
                wall,
                dir,
                inbox,
                sender,
                throttle,
                batchBytes,
                () -> closed,
                progress,
                this);
        this.thread = Executors.newSingleThreadExecutor(DaemonThreads.factory("dht-restore", false));
        this.learner = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("dht-restore-learn", false));
        if (gate.restoring()) {
            RestoreLearner learn = new RestoreLearner(
                    gate, topology, client, clock, self, this::local, this::finishLearnt, this::served);
            DaemonThreads.repeat(learner, "restore: asking the other members", Duration.ofMillis(500), learn::ask);
        }
        resumeSaved();
    }

    private void resumeSaved() {
        if (backups == null) {
            return;
        }
        RestoreJob.Saved saved = RestoreJob.load(dir);
        if (saved == null) {
            return;
        }
        job = saved.job();
        RestoreJob resumed = job;
        switch (saved.phase()) {
            case "running" -> {
                // below
            }
            case "loading" -> {
                log.info("restore {}: loading what this node received again after a restart", resumed.id());
                phase = "loading";
                thread.execute(() -> load(resumed));
                return;
            }
            case "loaded" -> {
                phase = "loaded";
                deleteReceived(resumed.id()); // a restart between the save and the delete
                return;
            }
            default -> {
                phase = saved.phase();
                error = saved.error();
                return;
            }
        }
        log.info(
                "resuming restore {} (share {} of {}) after a restart: {} parts done",
                job.id(),
                job.share(),
                job.shares(),
                job.partsDone().size());
        phase = "restoring";
        RestoreJob j = job;
        thread.execute(() -> shareRun.run(j));
    }

    /**
     * Starts (or confirms: idempotent) this node's share of restoring backup id.
     *
     * @throws BackupAgent.Conflict another restore runs, the topology is moving, the backup is not complete, or it
     *                              is too old for a live cluster
     */
    public synchronized Map<String, Object> start(String id, int share, int shares) {
        BackupStore.checkId(id);
        if (shares < 1 || share < 0 || share >= shares) {
            throw new IllegalArgumentException("share must be in 0.." + (shares - 1) + " of " + shares);
        }
        RestoreJob current = job;
        if (current != null && current.id().equals(id)) {
            if (current.share() != share || current.shares() != shares) {
                throw new BackupAgent.Conflict("restore " + id + " runs here as share " + current.share() + " of "
                        + current.shares() + ", not " + share + " of " + shares);
            }
            if ("failed".equals(phase)) {
                launch(current);
            }
            return status();
        }
        if (current != null && ("restoring".equals(phase) || "starting".equals(phase))) {
            throw new BackupAgent.Conflict("restore " + current.id() + " is still running on this node");
        }
        shareRun.admit(id);
        RestoreJob next = new RestoreJob(id, share, shares, List.of(), null, null);
        job = next;
        launch(next);
        return status();
    }

    private void launch(RestoreJob j) {
        error = null;
        phase = "restoring";
        save(j, "running", null);
        thread.execute(() -> shareRun.run(j));
    }

    /**
     * The job's phase is saved, then shown (what the other members and the operator act on is on disk first), under
     * this object's lock: the learner's thread moves the phase on too, and the saves must land in the same order.
     */
    synchronized void streamed(RestoreJob j) {
        save(j, "streamed", null);
        phase = "streamed";
    }

    private synchronized void loaded(RestoreJob j) {
        save(j, "loaded", null);
        phase = "loaded";
    }

    synchronized void fail(RestoreJob j, String message) {
        if (closed) {
            return;
        }
        error = message;
        phase = "failed";
        save(j, "failed", message);
        log.warn("restore {} failed on this node: {}", j.id(), message);
    }

    private void save(RestoreJob j, String savedPhase, String savedError) {
        j.save(dir, savedPhase, savedError);
    }

    /** A restore runs (the tombstone sweeper waits: a restored tombstone must meet every copy it hides first). */
    public boolean active() {
        return "restoring".equals(phase) || gate.restoring();
    }

    /**
     * Every member has sent its share (the operator calls this on every member). Into a live cluster: done. Into a new
     * one: this member loads what it received (idempotent), then serves once every member has loaded.
     */
    public synchronized void finish(String id) {
        RestoreJob j = job;
        if (gate.restoring() && j != null && j.id().equals(id)) {
            switch (phase) {
                case "streamed" -> startLoad(j);
                case "loading", "loaded" -> {
                    // under way: the call is repeated until every member serves
                }
                case "failed" -> {
                    if (!loadFailed) {
                        throw new BackupAgent.Conflict("this node's share of restore " + id + " failed (" + error
                                + "): ask for the share again first");
                    }
                    startLoad(j);
                }
                default ->
                    throw new BackupAgent.Conflict("this node's share of restore " + id + " is " + phase
                            + ", not streamed: finish the restore once every member has sent its share");
            }
            return;
        }
        if ("restoring".equals(phase)) {
            throw new BackupAgent.Conflict("restore " + j.id() + " still runs on this node");
        }
        if (gate.restoring() && inbox.records(id) > 0) {
            throw new BackupAgent.Conflict("this node holds records received for restore " + id + " but was not"
                    + " asked for its share of it: ask for the share first (POST " + STATUS_PATH + "), then finish");
        }
        served(id);
    }

    private void startLoad(RestoreJob j) {
        error = null;
        loadFailed = false;
        phase = "loading";
        save(j, "loading", null);
        thread.execute(() -> load(j));
    }

    /** Loads what this node received for the restore into its store (the journal goes once "loaded" is saved). */
    private void load(RestoreJob j) {
        try {
            inbox.load(j.id(), store);
            loaded(j);
            deleteReceived(j.id());
        } catch (IOException | UncheckedIOException | StoreException | IllegalArgumentException e) {
            loadFailed = true;
            fail(j, "loading the records received failed: " + e.getMessage());
        } catch (RuntimeException e) {
            log.error("restore {}: loading failed", j.id(), e);
            loadFailed = true;
            fail(j, "loading the records received failed: " + e);
        }
    }

    private void deleteReceived(String id) {
        try {
            inbox.delete(id);
        } catch (IOException e) {
            log.warn("restore {}: cannot delete the records received, loaded already: {}", id, e.getMessage());
        }
    }

    /** This member's restore, for {@link RestoreLearner}: the id and phase (null id: none). */
    RestoreLearner.Local local() {
        RestoreJob j = job;
        return new RestoreLearner.Local(j == null ? null : j.id(), phase);
    }

    /** The other members finish restore id and this one missed the call: it finishes too. */
    private void finishLearnt(String id) {
        try {
            finish(id);
        } catch (BackupAgent.Conflict e) {
            log.debug("restore {}: not finishing yet: {}", id, e.getMessage());
        }
    }

    /** Restore id is done here (every member has loaded it, or it went into a live cluster): serve clients. */
    private synchronized void served(String id) {
        RestoreJob j = job;
        gate.done(id);
        if (j != null && j.id().equals(id)) {
            phase = "done";
            save(j, "done", null);
        }
    }

    /** A batch another member (or this one) sent for restore id: kept in the inbox until every share is sent. */
    RestoreBatches.Checked receive(String id, byte[] body) throws IOException {
        BackupStore.checkId(id);
        if (!gate.restoring()) {
            throw new BackupAgent.Conflict("this member serves clients: records of a restore into a live cluster are"
                    + " applied as they come (" + dev.dht.node.movement.MovementEndpoints.RECORDS + ")");
        }
        return inbox.take(id, body);
    }

    /** {@code GET /v0/admin/restore}. */
    public Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        RestoreJob j = job;
        m.put(
                "phase",
                !gate.restoring() && gate.doneId() != null && ("idle".equals(phase) || "streamed".equals(phase))
                        ? "done"
                        : phase);
        m.put("id", j == null ? gate.doneId() : j.id());
        m.put("serving", !gate.restoring());
        m.put("share", j == null ? null : j.share());
        m.put("shares", j == null ? null : j.shares());
        shareRun.progress(m, j);
        m.put("records", Map.of("sent", sender.recordsSent.get(), "copies", sender.copiesSent.get()));
        if (j != null) {
            m.putAll(inbox.status(j.id()));
        }
        m.put("waitingFor", sender.waitingFor);
        m.put("error", error);
        return m;
    }

    @Override
    public void close() {
        closed = true;
        learner.shutdownNow();
        thread.shutdownNow();
        inbox.close();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
