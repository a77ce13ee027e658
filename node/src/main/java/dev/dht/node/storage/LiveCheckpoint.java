package dev.dht.node.storage;

import dev.dht.node.io.Directories;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.LogFile;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WalFileType;

/**
 * A checkpoint of an open RocksDB that does not flush its memtables: the table files as they are (hard links), and
 * the WAL files, which hold what the memtables hold, copied. rocksdbjni's {@code Checkpoint} always flushes first (its
 * API has no {@code log_size_for_flush}); that flush on every member at once, and the compaction its new level-0 file
 * sets off, were most of what a backup cost the live load (docs/operations.md, "Measured cost").
 *
 * <p>Why the result is one consistent database holding every write applied before the call (the order is RocksDB's
 * own {@code GetLiveFilesStorageInfo} without a flush):
 * <ol>
 * <li>File deletions are off for the whole call: a flush or compaction that ends meanwhile leaves the table files
 *     and the WAL files it made obsolete where they are.
 * <li>The table files and the MANIFEST's size are read in one call, under RocksDB's mutex: the MANIFEST copied up to
 *     that size describes exactly those files and, per column family, the oldest WAL it still needs.
 * <li>Then the WAL is written out to the OS (a no-op unless manual WAL flush is on) and the WAL files are listed.
 *     Every WAL that step 2 needs is still there (nothing was deleted since), and every write applied before the call
 *     is in a listed file within its listed size, or already in a table file of step 2. A WAL created after step 2
 *     holds only later writes; all column families share the WAL, so replaying it keeps them in step.
 * </ol>
 * Every listed WAL but the last was closed before the listing (the next one exists): its listed size is whole and
 * it never changes again (WAL files are not recycled), so it is linked as the table files are; the last may still be
 * written: it is copied up to its listed size, and the copy can end inside a record. A read-only open replays in point-in-time
 * recovery mode ({@link CheckpointReader}), which drops a record cut at the end of the last WAL.
 *
 * <p>Copying the WAL costs its size in I/O and upload, and a read-only open holds what it replays in memory: above
 * {@code walLimit} bytes the checkpoint flushes instead, as RocksDB's {@code log_size_for_flush} does. Recycled WAL
 * files (not used by {@link RocksStore}) would need the whole file copied; a separate WAL directory is not supported.
 */
final class LiveCheckpoint {
    /** What {@link #take} did: copied the WAL, or flushed because the WAL was larger than the limit. */
    record Outcome(boolean flushed, int tableFiles, int walFiles, long walBytes) {}

    /** This boot of the machine (Linux), or null: then every copy is synced instead (see {@link #intact}). */
    private static final String BOOT = bootId();

    private final RocksDB db;
    private final Path source;
    private final long walLimit;
    /** Runs once the live files are known and before the WAL is listed: tests end a flush there. */
    private final Runnable afterLiveFiles;

    LiveCheckpoint(RocksDB db, Path source, long walLimit, Runnable afterLiveFiles) {
        this.db = db;
        this.source = source;
        this.walLimit = walLimit;
        this.afterLiveFiles = afterLiveFiles;
    }

    /** Takes the checkpoint into target, which must not exist; a failure leaves neither target nor its staging. */
    Outcome take(Path target) throws RocksDBException, IOException {
        if (Files.exists(target)) {
            throw new IOException(target + " exists");
        }
        Path staging = target.resolveSibling(target.getFileName() + ".tmp");
        Directories.deleteTree(staging); // left by a process that died in the middle
        Files.createDirectories(staging);
        Outcome outcome;
        try {
            outcome = copyInto(staging);
        } catch (RocksDBException | IOException | RuntimeException e) {
            Directories.deleteTree(staging);
            throw e;
        }
        if (outcome == null) { // the WAL is too large to copy: flush instead
            Directories.deleteTree(staging);
            try (org.rocksdb.Checkpoint checkpoint = org.rocksdb.Checkpoint.create(db)) {
                checkpoint.createCheckpoint(target.toString());
            }
            markBoot(target);
            return new Outcome(true, 0, 0, 0);
        }
        // whole or absent: a job resumed after a crash trusts a checkpoint that has its CURRENT
        Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        forceDirectory(target.getParent());
        markBoot(target);
        return outcome;
    }

    /** The live files into dir, or null (nothing copied) if the WAL is over the limit. */
    private Outcome copyInto(Path dir) throws RocksDBException, IOException {
        db.disableFileDeletions();
        try {
            RocksDB.LiveFiles live = db.getLiveFiles(false);
            afterLiveFiles.run();
            db.flushWal(false);
            List<LogFile> wals = new ArrayList<>();
            long walBytes = 0;
            for (LogFile wal : db.getSortedWalFiles()) { // by number: the copies end with the newest
                if (wal.type() == WalFileType.kAliveLogFile) {
                    wals.add(wal);
                    walBytes += wal.sizeFileBytes();
                }
            }
            if (walBytes > walLimit) {
                return null;
            }
            String manifest = null;
            int tables = 0;
            for (String listed : live.files) {
                String name = Path.of(listed).getFileName().toString(); // listed as "/000012.sst"
                if (name.equals("CURRENT")) {
                    continue; // may name a newer MANIFEST by now: written below for the one copied
                } else if (name.startsWith("MANIFEST-")) {
                    manifest = name;
                    copy(source.resolve(name), dir.resolve(name), live.manifestFileSize);
                } else if (name.startsWith("OPTIONS-")) {
                    copy(source.resolve(name), dir.resolve(name), Files.size(source.resolve(name)));
                } else { // table and blob files never change once written
                    link(source.resolve(name), dir.resolve(name));
                    tables++;
                }
            }
            if (manifest == null) {
                throw new IOException("RocksDB listed no MANIFEST among the live files " + live.files);
            }
            for (int i = 0; i < wals.size(); i++) {
                LogFile wal = wals.get(i);
                String name = Path.of(wal.pathName()).getFileName().toString();
                if (i < wals.size() - 1) {
                    link(source.resolve(name), dir.resolve(name)); // closed: never written again (no recycling)
                } else {
                    copy(source.resolve(name), dir.resolve(name), wal.sizeFileBytes()); // the one still written
                }
            }
            write(dir.resolve("CURRENT"), manifest + "\n");
            forceDirectory(dir);
            return new Outcome(false, tables, wals.size(), walBytes);
        } finally {
            db.enableFileDeletions(); // counted: balances exactly our disable, even if another holder remains
        }
    }

    /**
     * Whether a checkpoint left by an earlier process can be used as it is: it has its CURRENT (it was renamed whole)
     * and the machine has not restarted since. Its copies are not synced (a checkpoint lives only until it is uploaded,
     * and syncing a WAL copy on every member at once stalled the live load's writes): the death of the process keeps
     * them in the page cache, a restart of the machine may not, so then the backup takes a new one.
     */
    static boolean intact(Path target) {
        if (!Files.exists(target.resolve("CURRENT"))) {
            return false;
        }
        if (BOOT == null) {
            return true; // copies synced
        }
        try {
            return BOOT.equals(
                    Files.readString(bootMarker(target), StandardCharsets.UTF_8).trim());
        } catch (IOException e) {
            return false;
        }
    }

    /** Deletes a checkpoint and its boot marker. */
    static void delete(Path target) {
        Directories.deleteTree(target);
        Path marker = bootMarker(target);
        try {
            Files.deleteIfExists(marker);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot delete " + marker, e);
        }
    }

    /** Where the boot a checkpoint was taken in is written (beside it: only the checkpoint is uploaded). */
    static Path bootMarker(Path target) {
        return target.resolveSibling(target.getFileName() + ".boot");
    }

    private static void markBoot(Path target) throws IOException {
        Files.writeString(bootMarker(target), BOOT == null ? "" : BOOT, StandardCharsets.UTF_8);
    }

    private static String bootId() {
        try {
            String id = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII)
                    .trim();
            return id.isEmpty() ? null : id;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static void link(Path from, Path to) throws IOException {
        try {
            Files.createLink(to, from);
        } catch (UnsupportedOperationException | FileSystemException e) {
            copy(from, to, Files.size(from)); // another filesystem: a copy of an immutable file is as good
        }
    }

    /** The first size bytes of from (synced only where the boot is unknown: {@link #intact}). */
    private static void copy(Path from, Path to, long size) throws IOException {
        try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
                FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long done = 0;
            while (done < size) {
                long n = in.transferTo(done, size - done, out);
                if (n <= 0) {
                    throw new IOException(from + " holds " + in.size() + " bytes, RocksDB reported " + size);
                }
                done += n;
            }
            if (BOOT == null) {
                out.force(true);
            }
        }
    }

    private static void write(Path to, String content) throws IOException {
        try (FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
            if (BOOT == null) {
                out.force(true);
            }
        }
    }

    private static void forceDirectory(Path dir) throws IOException {
        if (BOOT != null) {
            return;
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
