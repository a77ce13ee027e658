package dev.dht.node.backup;

import dev.dht.node.io.AtomicFiles;
import dev.dht.node.io.Throttle;
import dev.dht.node.json.Json;
import dev.dht.node.natives.BackgroundPriority;
import dev.dht.node.objectstore.ObjectStoreException;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StoreException;
import dev.dht.node.topology.TopologyState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This member's part of a backup (docs/operations.md, "Back up and restore"): on request, after the start point T0
 * the operator fixed, it takes a RocksDB checkpoint (table files hard-linked, the WAL copied, nothing flushed: every
 * write applied before the request is in it; {@link RocksStore#checkpoint}), claims the checkpoint's files in its
 * member manifest, uploads each file the store does not hold yet (by content name, throttled), and marks the manifest
 * complete. One backup at a time, on its own thread.
 *
 * <p>The job is persisted in {@code <data-dir>/backup/job.json} before anything else happens, so a node restarted in
 * the middle resumes it: with the checkpoint it had if that is whole, else with a new one (still after T0), and
 * without uploading again what the store already holds. A node whose data directory is gone has no job: asked for
 * its progress, it answers idle, and the operator fails the backup by name.
 *
 * <p>Every member must take its checkpoint in the same stable topology state: a record moved between two members'
 * checkpoints could be missing from both. A member refuses while a move runs, and records its state's version;
 * {@link #finish} refuses a backup whose members disagree.
 *
 * <p>At start the store is probed once (a LIST of one key: reachable, bucket present, credentials taken), and again
 * every minute while that fails; the outcome is in the status ({@code store}) and the log. Nothing is written to the
 * bucket at start.
 */
public final class BackupAgent implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BackupAgent.class);
    static final String DIR = "backup";
    static final String JOB = "job.json";
    /** Files are read for their content names at this many times the upload rate. */
    static final int HASH_PACE = 4;

    private final RocksStore store;
    private final BackupStore backups;
    private final Supplier<TopologyState> topology;
    private final String self;
    private final Throttle throttle;
    private final LongSupplier wall;
    private final Path dir;
    private final ContentNames names;
    private final PartUploads parts;
    private final StoreProbe probe;
    private final ScheduledExecutorService thread;

    private volatile Job job;
    private volatile String phase = "idle";
    private volatile String error;
    private final AtomicLong filesTotal = new AtomicLong();
    private final AtomicLong filesDone = new AtomicLong();
    private final AtomicLong filesReused = new AtomicLong();
    private final AtomicLong bytesTotal = new AtomicLong();
    private final AtomicLong bytesDone = new AtomicLong();
    private final AtomicLong bytesUploaded = new AtomicLong();
    private volatile boolean closed;

    /** A request: which backup, its start point, this member's index. */
    record Job(String id, long t0, int member, long startedAt) {}

    /** The job as saved in {@value #JOB}, with the phase it reached (done, failed) and its error. */
    record SavedJob(String id, long t0, int member, long startedAt, String phase, String error) {}

    /** Refused request (HTTP 409 with this message). */
    public static final class Conflict extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Conflict(String message) {
            super(message);
        }
    }

    /** @param partSize files larger than this are uploaded in parts of this size (resumable) */
    public BackupAgent(
            RocksStore store,
            BackupStore backups,
            Supplier<TopologyState> topology,
            String self,
            Throttle throttle,
            long partSize,
            LongSupplier wall) {
        this.store = store;
        this.backups = backups;
        this.topology = topology;
        this.self = self;
        this.throttle = throttle;
        this.wall = wall;
        this.dir = store.dir().resolve(DIR);
        this.names = new ContentNames(dir.resolve("names.json"), backups);
        this.parts = new PartUploads(backups.client(), dir.resolve("uploads"), partSize);
        // hashing and reading files: the live load goes first
        this.thread = Executors.newSingleThreadScheduledExecutor(BackgroundPriority.threadFactory("dht-backup", false));
        this.probe = new StoreProbe(backups, wall, thread, () -> closed);
        thread.execute(probe::probe); // before a resumed job, on the same thread
        resumeSaved();
    }

    public BackupStore backups() {
        return backups;
    }

    private void resumeSaved() {
        Path file = dir.resolve(JOB);
        if (!Files.exists(file)) {
            return;
        }
        try {
            SavedJob m = Json.read(Files.readString(file, StandardCharsets.UTF_8), SavedJob.class);
            Job saved = new Job(m.id(), m.t0(), m.member(), m.startedAt());
            String savedPhase = m.phase();
            job = saved;
            if ("done".equals(savedPhase) || "failed".equals(savedPhase)) {
                phase = savedPhase;
                error = m.error();
                return;
            }
            log.info("resuming backup {} (member {}) after a restart", saved.id(), saved.member());
            phase = "checkpointing";
            thread.execute(() -> run(saved));
        } catch (IOException | RuntimeException e) {
            log.warn("cannot read the saved backup job {}: {}; no backup resumed", file, e.getMessage());
        }
    }

    /**
     * Starts this member's part of backup id (or confirms the one running or done: the call is idempotent).
     *
     * @throws Conflict another backup runs here, or a move is in progress
     */
    public synchronized Map<String, Object> start(String id, long t0, int member) {
        BackupStore.checkId(id);
        if (member < 0) {
            throw new IllegalArgumentException("member must be 0 or more");
        }
        Job current = job;
        if (current != null && current.id().equals(id)) {
            if (current.member() != member || current.t0() != t0) {
                throw new Conflict("backup " + id + " runs here as member " + current.member() + " with start point "
                        + current.t0() + ", not member " + member + " at " + t0);
            }
            if ("failed".equals(phase)) {
                // asked again after a failure: try again (a transient store error, say)
                launch(current);
            }
            return status();
        }
        if (current != null && !("done".equals(phase) || "failed".equals(phase))) {
            throw new Conflict("backup " + current.id() + " is still running on this member (" + phase + ")");
        }
        TopologyState s = topology.get();
        if (s == null || s.moving()) {
            throw new Conflict("a move of the members is in progress (" + s + "): a backup needs a stable topology;"
                    + " ask again when the move is done");
        }
        Job next = new Job(id, t0, member, wall.getAsLong());
        job = next;
        launch(next);
        return status();
    }

    private void launch(Job j) {
        error = null;
        phase = "checkpointing";
        filesTotal.set(0);
        filesDone.set(0);
        filesReused.set(0);
        bytesTotal.set(0);
        bytesDone.set(0);
        bytesUploaded.set(0);
        save(j, "running", null);
        thread.execute(() -> run(j));
    }

    private void run(Job j) {
        try {
            MemberManifest done = backups.member(j.id(), j.member());
            if (done != null && done.complete() && done.self().equals(self) && done.t0() == j.t0()) {
                finishLocal(j, done, 0);
                return;
            }
            Path checkpoint = dir.resolve("checkpoint-" + j.id());
            TopologyState before = topology.get();
            if (before == null || before.moving()) {
                throw new Conflict("a move of the members started (" + before + ")");
            }
            if (!RocksStore.checkpointIntact(checkpoint)) { // none, cut short, or from before the machine restarted
                RocksStore.deleteCheckpoint(checkpoint);
                Files.createDirectories(dir);
                store.checkpoint(checkpoint);
            }
            long takenAt = wall.getAsLong();
            // the live store's estimate, not the checkpoint's: opening it would replay its WAL on this serving member
            long records = Math.max(0, store.stats().estimatedKeys());
            TopologyState after = topology.get();
            if (after == null || after.version() != before.version()) {
                throw new Conflict(
                        "the topology changed while the checkpoint was taken (" + before + " -> " + after + ")");
            }
            phase = "uploading";
            int stale = parts.abortStale(BackupStore.FILES, java.time.Instant.ofEpochMilli(wall.getAsLong()));
            if (stale > 0) {
                log.info(
                        "aborted {} uploads in the store begun more than {} ago (members that stopped in the middle)",
                        stale,
                        PartUploads.STALE);
            }
            List<Path> files = files(checkpoint);
            List<MemberManifest.FileRef> refs = new ArrayList<>();
            // named at a few times the upload rate: fast enough not to matter, slow enough to be no burst
            Throttle hashing = new Throttle(throttle.bytesPerSecond() * HASH_PACE);
            for (Path f : files) {
                long size = Files.size(f);
                refs.add(new MemberManifest.FileRef(
                        f.getFileName().toString(), size, BackupStore.objectPath(names.of(f, size, hashing))));
                bytesTotal.addAndGet(size);
            }
            filesTotal.set(refs.size());
            MemberManifest manifest = new MemberManifest(
                    j.id(),
                    j.t0(),
                    j.member(),
                    self,
                    before.version(),
                    before.destination().urls(),
                    takenAt,
                    backups.codec().keyId(),
                    records,
                    refs,
                    false);
            backups.putMember(manifest); // claims the files before any upload: a prune keeps them
            for (int i = 0; i < files.size(); i++) {
                if (closed) {
                    return; // resumed after the restart
                }
                MemberManifest.FileRef ref = refs.get(i);
                boolean uploaded = backups.upload(
                        files.get(i),
                        ref.size(),
                        ref.object().substring(BackupStore.FILES.length()),
                        throttle,
                        bytesUploaded::addAndGet,
                        parts);
                if (!uploaded) {
                    filesReused.incrementAndGet();
                }
                filesDone.incrementAndGet();
                bytesDone.addAndGet(ref.size());
            }
            MemberManifest complete = manifest.completed();
            backups.putMember(complete);
            parts.abortSaved();
            RocksStore.deleteCheckpoint(checkpoint);
            probe.worked();
            finishLocal(j, complete, bytesUploaded.get());
        } catch (ObjectStoreException e) {
            probe.failed(e);
            fail(j, e.getMessage());
        } catch (Conflict | StoreException | IOException | UncheckedIOException e) {
            fail(j, e.getMessage());
        } catch (RuntimeException e) {
            log.error("backup {} failed", j.id(), e);
            fail(j, e.toString());
        }
    }

    private void finishLocal(Job j, MemberManifest m, long uploaded) {
        filesTotal.set(m.files().size());
        filesDone.set(m.files().size());
        bytesTotal.set(m.bytes());
        bytesDone.set(m.bytes());
        phase = "done";
        save(j, "done", null);
        names.save();
        log.info(
                "backup {}: member {} stored, {} files, {} bytes ({} uploaded, the rest already in the store)",
                j.id(),
                j.member(),
                m.files().size(),
                m.bytes(),
                uploaded);
    }

    private void fail(Job j, String message) {
        if (closed) {
            return;
        }
        error = message;
        phase = "failed";
        save(j, "failed", message);
        log.warn("backup {} failed on this member: {}", j.id(), message);
    }

    private void save(Job j, String savedPhase, String savedError) {
        try {
            AtomicFiles.writeString(
                    dir.resolve(JOB),
                    Json.write(new SavedJob(j.id(), j.t0(), j.member(), j.startedAt(), savedPhase, savedError)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot persist the backup job in " + dir, e);
        }
    }

    /** A checkpoint's files in the order they are uploaded: by name, the same order on every try. */
    static List<Path> files(Path checkpoint) throws IOException {
        try (Stream<Path> list = Files.list(checkpoint)) {
            return list.filter(Files::isRegularFile).sorted().toList();
        }
    }

    /** Whether a backup runs on this member now. */
    public boolean running() {
        String p = phase;
        return "checkpointing".equals(p) || "uploading".equals(p);
    }

    /** {@code GET /v0/admin/backup}: the job and its progress. */
    public Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        Job j = job;
        m.put("phase", phase);
        m.put("id", j == null ? null : j.id());
        m.put("t0", j == null ? null : j.t0());
        m.put("member", j == null ? null : j.member());
        m.put("self", self);
        m.put("files", Map.of("total", filesTotal.get(), "done", filesDone.get(), "reused", filesReused.get()));
        // uploaded: bytes sent so far, counted as they stream (a retried file counts again)
        m.put("bytes", Map.of("total", bytesTotal.get(), "done", bytesDone.get(), "uploaded", bytesUploaded.get()));
        m.put("error", error);
        m.put("store", probe.status());
        return m;
    }

    /**
     * Marks backup id complete once every member's part is stored (see {@link BackupCompletion}).
     *
     * @throws Conflict naming the members that are missing or disagree
     */
    public BackupManifest finish(String id, int members) {
        return BackupCompletion.finish(backups, id, members, wall.getAsLong());
    }

    /** Removes the job's leftovers after a failure the operator gave up on (its checkpoint takes disk space). */
    public synchronized void forget(String id) {
        Job j = job;
        if (j != null && j.id().equals(id) && !running()) {
            RocksStore.deleteCheckpoint(dir.resolve("checkpoint-" + id));
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
