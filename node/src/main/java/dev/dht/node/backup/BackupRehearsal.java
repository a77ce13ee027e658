package dev.dht.node.backup;

import dev.dht.node.io.AtomicFiles;
import dev.dht.node.io.Directories;
import dev.dht.node.objectstore.ObjectCodec;
import dev.dht.node.objectstore.ObjectStoreException;
import dev.dht.node.objectstore.Throttle;
import dev.dht.node.topology.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the backup thread does first when a node starts: one call to the object store, then a rehearsal of a backup's
 * own steps on a small file of the node's own, uploaded and deleted at once.
 *
 * <p>Why a rehearsal: the first backup of a node's life ran JDK code that the live load runs too down branches the
 * JIT had compiled away for the load (the deoptimization log of {@code make bench-backup}: {@code String(Charset,
 * byte[])}, {@code HashMap.getOrDefault}, {@code Buffer.limit}, {@code Comparator.comparing}'s lambda, file writes
 * through the socket writes' {@code IOUtil}, ...). Most such traps made the compiled method not entrant, so the load
 * ran it interpreted or in C1 until C2 compiled it again, up to seconds later, and the recompiles ran beside the load
 * (docs/operations.md, "Measured cost"). A trap is remembered in the method's profile and the branch is compiled in
 * from then on: taken here, at start and under SCHED_IDLE, those traps come before any load. Not all of them: a
 * branch the load's code is compiled without only after this ran (a socket write the store is slow to take, say)
 * still traps in the first backup; the docs list those seen.
 */
final class BackupRehearsal {
    private static final Logger log = LoggerFactory.getLogger(BackupRehearsal.class);
    /** Bytes hashed at start, in a backup's 64 KiB reads (see {@link #warmHash}). */
    static final int WARM_HASH_BYTES = 16 << 20;
    /** The rehearsal file's bytes: uploaded at the node's --backup-rate, as a backup's are (a second at 4MiB). */
    static final int FILE_BYTES = 4 << 20;
    /** Where under the backup directory the rehearsal stages its files (removed when it ends). */
    static final String DIR = "rehearsal";
    /**
     * A rehearsal object older than this was left by a member stopped in the middle of its rehearsal (one lasts about
     * a second; an hour leaves room for the store's clock and a slow store).
     */
    static final Duration LEFTOVER_AGE = Duration.ofHours(1);

    /** What a rehearsal did: whether the store answered, the bytes sent, and why it stopped if it failed. */
    record Outcome(boolean reachable, long bytesUploaded, String error) {
    }

    private final BackupStore backups;
    private final ContentNames names;
    private final Throttle throttle;
    private final Path backupDir;

    BackupRehearsal(BackupStore backups, ContentNames names, Throttle throttle, Path backupDir) {
        this.backups = backups;
        this.names = names;
        this.throttle = throttle;
        this.backupDir = backupDir;
    }

    Outcome run() {
        boolean reachable = probe();
        warmHash();
        if (!reachable) {
            return new Outcome(false, 0, "the object store was not reachable");
        }
        long started = System.nanoTime();
        Outcome o = rehearse();
        if (o.error() == null) {
            log.info("backup rehearsal: {} bytes uploaded to {}/{} and deleted in {} ms", o.bytesUploaded(),
                    backups.client().location(), BackupStore.REHEARSALS, (System.nanoTime() - started) / 1_000_000);
        } else {
            log.warn("backup rehearsal failed ({}); the first backup will warm the JIT up itself", o.error());
        }
        return o;
    }

    /**
     * One call to the store says at once whether backups can work (a wrong bucket or credentials show in the log, not
     * only at the first backup).
     */
    private boolean probe() {
        try {
            backups.client().probe();
            log.info("object store {}: reachable, credentials taken", backups.client().location());
            return true;
        } catch (ObjectStoreException | UncheckedIOException e) {
            log.warn("object store {} not usable at start, backups will fail until it is: {}",
                    backups.client().location(), e.getMessage());
            return false;
        }
    }

    /**
     * Enough bytes (in the 64 KiB reads a backup hashes with) for the JIT to compile the hash with the CPU's SHA
     * instructions now: with one buffer, it compiled it in the first backup, 0.06 s of C2 work per node beside the live
     * load, half of the C2 work of that backup (JFR, make bench-backup). Under 0.15 s here, once per start (a cold JVM
     * hashed 16 MiB in 78-120 ms on the 2-core machine). Also when the store is not reachable.
     */
    private void warmHash() {
        byte[] block = new byte[64 << 10];
        ObjectCodec.Digest digest = backups.codec().digest();
        for (int hashed = 0; hashed < WARM_HASH_BYTES; hashed += block.length) {
            digest.update(block, 0, block.length);
        }
        digest.finish();
    }

    /**
     * A backup's steps, through the same code, on a stage of two files: the job written as {@link BackupAgent} writes
     * it, the files listed and sorted, named, uploaded at the node's rate (a HEAD, then a streamed PUT) and deleted, the
     * content names saved. First, rehearsal objects left by stopped members are deleted.
     */
    private Outcome rehearse() {
        Path stage = backupDir.resolve(DIR);
        AtomicLong sent = new AtomicLong();
        try {
            Directories.deleteTree(stage); // left by a node stopped in the middle
            Files.createDirectories(stage);
            AtomicFiles.writeString(stage.resolve(BackupAgent.JOB),
                    Json.write(new BackupAgent.Job("rehearsal", 0L, 0, 0L).toMap("running", null)));
            writeRandom(stage.resolve("rehearsal.bin"));
            int swept = backups.sweepRehearsals(Instant.now().minus(LEFTOVER_AGE));
            if (swept > 0) {
                log.info("backup rehearsal: deleted {} rehearsal objects left by members stopped in the middle of one",
                        swept);
            }
            Throttle hashing = new Throttle(throttle.bytesPerSecond() * BackupAgent.HASH_PACE);
            for (Path f : BackupAgent.files(stage)) {
                long size = Files.size(f);
                backups.rehearse(f, size, names.of(f, size, hashing), throttle, sent::addAndGet);
            }
            names.save();
            return new Outcome(true, sent.get(), null);
        } catch (IOException | ObjectStoreException | UncheckedIOException e) {
            return new Outcome(true, sent.get(), e.getMessage());
        } finally {
            try {
                Directories.deleteTree(stage);
            } catch (UncheckedIOException e) {
                log.warn("cannot remove the backup rehearsal's files in {}: {}", stage, e.getMessage());
            }
        }
    }

    /** Random bytes, so that the upload's content name is the node's own this time and no two members share it. */
    private static void writeRandom(Path file) throws IOException {
        byte[] block = new byte[64 << 10];
        SplittableRandom random = new SplittableRandom();
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int written = 0; written < FILE_BYTES; written += block.length) {
                random.nextBytes(block);
                out.write(block);
            }
        }
    }
}
