package dev.dht.node.restore;

import dev.dht.node.backup.BackupStore;
import dev.dht.node.backup.MemberManifest;
import dev.dht.node.io.Directories;
import dev.dht.node.io.Throttle;
import dev.dht.node.storage.CheckpointReader;
import dev.dht.node.storage.RangeCursor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams one backed-up part of a restore: downloads its files (checked against their content names, decrypted),
 * opens them read-only as the database they were, and sends every record to its owners through the
 * {@link RecordSender} in pipelined slices. The position after the last slice acknowledged together with every slice
 * before it is handed on about once a second (the caller persists it), so a restarted node sends again at most the
 * slices that were in flight.
 */
final class PartStreamer {
    private static final Logger log = LoggerFactory.getLogger(PartStreamer.class);
    static final int SLICE_RECORDS = 8_192;
    /** Slices sent and not yet acknowledged while the next is read (the owners store one while we read another). */
    static final int IN_FLIGHT = 3;

    private final BackupStore backups;
    private final Throttle throttle;
    private final RecordSender sender;
    private final int batchBytes;
    private final Path dir;
    private final AtomicLong bytesDownloaded;
    private final BooleanSupplier closed;
    private final Consumer<RestoreJob> progress;

    /**
     * @param dir      the restore directory: parts are downloaded under {@code <id>/part-<member>}
     * @param progress takes the job with the position reached (to persist it), and with each part done
     */
    PartStreamer(
            BackupStore backups,
            Throttle throttle,
            RecordSender sender,
            int batchBytes,
            Path dir,
            AtomicLong bytesDownloaded,
            BooleanSupplier closed,
            Consumer<RestoreJob> progress) {
        this.backups = backups;
        this.throttle = throttle;
        this.sender = sender;
        this.batchBytes = batchBytes;
        this.dir = dir;
        this.bytesDownloaded = bytesDownloaded;
        this.closed = closed;
        this.progress = progress;
    }

    /** Downloads one part, sends its records; returns the job with the part done, or null when closing. */
    RestoreJob stream(RestoreJob j, MemberManifest part) throws IOException, InterruptedException {
        Path local = dir.resolve(j.id()).resolve("part-" + part.member());
        Files.createDirectories(local);
        for (MemberManifest.FileRef f : part.files()) {
            Path target = local.resolve(f.name());
            if (!(Files.exists(target) && Files.size(target) == f.size())) {
                backups.download(f.object(), f.size(), target, throttle);
            }
            bytesDownloaded.addAndGet(f.size());
            if (closed.getAsBoolean()) {
                return null;
            }
        }
        byte[] resume = part.member() == (j.part() == null ? -1 : j.part()) ? j.resume() : null;
        log.info(
                "restore {}: sending the records of part {} ({}){}",
                j.id(),
                part.member(),
                part.self(),
                resume == null ? "" : " from its resume point");
        // The first acknowledged slice's position is persisted at once, later ones about once a second
        boolean persisted = false;
        long persistedAt = System.nanoTime();
        // Slices are pipelined: up to IN_FLIGHT of them travel while the next is read; the position persisted is
        // always just after a slice that, with every slice before it, is acknowledged.
        Deque<Sent> inFlight = new ArrayDeque<>();
        try (CheckpointReader reader = new CheckpointReader(local);
                RangeCursor cursor = reader.records(resume == null ? new byte[0] : resume)) {
            boolean exhausted = false;
            while (!exhausted) {
                byte[] last = null;
                int n = 0;
                while (n < SLICE_RECORDS && sender.buffered() < 4L * batchBytes) {
                    if (!cursor.next()) {
                        exhausted = true;
                        break;
                    }
                    last = cursor.key();
                    sender.add(last, cursor.record());
                    n++;
                }
                throttle.take(sender.buffered()); // --restore-rate bounds what the restore sends, as what it downloads
                inFlight.add(new Sent(sender.send(), last == null ? null : Arrays.copyOf(last, last.length + 1)));
                while (inFlight.size() > IN_FLIGHT || exhausted && !inFlight.isEmpty()) {
                    Sent s = inFlight.poll();
                    if (!sender.await(s.slice(), () -> !closed.getAsBoolean())) {
                        return null;
                    }
                    if (s.resume() != null) {
                        resume = s.resume(); // just after the last key of an acknowledged slice
                    }
                }
                if (resume != null && (!persisted || System.nanoTime() - persistedAt > TimeUnit.SECONDS.toNanos(1))) {
                    j = new RestoreJob(j.id(), j.share(), j.shares(), j.partsDone(), part.member(), resume);
                    progress.accept(j);
                    persisted = true;
                    persistedAt = System.nanoTime();
                }
                if (closed.getAsBoolean()) {
                    return null;
                }
            }
        }
        List<Integer> done = new ArrayList<>(new TreeSet<>(j.partsDone()));
        done.add(part.member());
        j = new RestoreJob(j.id(), j.share(), j.shares(), done, null, null);
        progress.accept(j);
        Directories.deleteTree(local);
        return j;
    }

    /** A slice in flight, and the position just after its last record. */
    private record Sent(RecordSender.Slice slice, byte[] resume) {}
}
