package dev.dht.node.storage;

import dev.dht.node.io.Directories;
import dev.dht.node.sorting.ExternalSorter;
import dev.dht.node.sorting.SortedCursor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.StampedLock;
import java.util.function.LongSupplier;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repair's index: the {@link Digest} of every record in ring-hash order, in a family of its own, built when repair
 * asks for it from one scan of the records, never written by a client's write. A write used to stage its digest here
 * in the same RocksDB write as the record: a second memtable insert and a third more WAL bytes per PUT, and the
 * flush's sort of the family; without them the closed-model PUT is 1.19x (docs/node.md, "Performance"), and repair
 * reads the index a few times a day.
 *
 * <p>A build is a snapshot: it holds every record stored when it began, none written after. A caller asks for a
 * view at least as new as {@code notBefore} (on the caller's clock, read just before the build's snapshot is
 * taken): an older index is rebuilt first, a newer one is reused. Repair asks with its round's start (a resumed
 * round: its resumption), so one build serves every step of a round and every coordinator whose round began before
 * it (docs/cluster.md, "Repair").
 *
 * <p>The digests are sorted in {@value #SORT_BYTES} bytes of heap ({@link ExternalSorter}, spilling sorted runs to
 * this store's filesystem) and written as table files that RocksDB ingests whole into a new family: no memtable, no
 * flush, no write stall for the clients' writes. The family is emptied at every open (what a crash or an older
 * version left there describes records of another time) and at every build.
 */
final class DigestIndex {
    private static final Logger log = LoggerFactory.getLogger(DigestIndex.class);

    static final String NAME = "digests";
    /** Memory the build's sort holds digests in before it spills a run (about 90k digests of 16-byte keys). */
    static final int SORT_BYTES = 8 << 20;

    private static final long CLOSE_WAIT_SECONDS = 10;

    /** Opens a cursor on a family of the store, tracked so that the store closes it with itself. */
    interface Cursors {
        RocksRangeCursor open(ColumnFamilyHandle family, byte[] from, byte[] to);
    }

    private final RocksDB db;
    private final ColumnFamilyHandle records;
    private final RocksOptions options;
    private final Path work;
    private final Cursors cursors;
    /** Builds take the write lock; a scan holds the read lock while it is open, so a build never drops its family. */
    private final StampedLock lock = new StampedLock();

    private ColumnFamilyHandle handle; // guarded by lock
    /** The caller's clock when the current index's snapshot was taken; MIN_VALUE: never built since the open. */
    private long builtAt = Long.MIN_VALUE; // guarded by lock

    private volatile long builds;
    /** Set by {@link #close}: a build running stops at its next record. */
    private volatile boolean closing;

    /**
     * @param handle the family as opened: emptied here (see the class comment)
     * @param work   a directory on the store's filesystem for the build's sort and table files (deleted after each)
     */
    DigestIndex(
            RocksDB db,
            ColumnFamilyHandle handle,
            ColumnFamilyHandle records,
            RocksOptions options,
            Path work,
            Cursors cursors)
            throws RocksDBException {
        this.db = db;
        this.records = records;
        this.options = options;
        this.work = work;
        this.cursors = cursors;
        this.handle = handle;
        if (!isEmpty()) {
            this.handle = anew();
        }
        Directories.deleteTree(work); // what a build that died left
    }

    /** Indexes built since the open. */
    long builds() {
        return builds;
    }

    /**
     * Stops a build that runs (at its next record), waits for it and for open scans (the store has closed their
     * cursors), and closes the family's handle: before the database closes.
     */
    void close() {
        closing = true;
        long stamp = 0;
        try {
            stamp = lock.tryWriteLock(CLOSE_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (stamp == 0) {
            log.warn("closing the store while a scan of the digest index is still open");
        }
        handle.close();
    }

    /**
     * A scan of an index whose snapshot was taken at or after notBefore on clock, building one first if the current
     * one is older (on the calling thread: repair's background scans). The index stays as it is while the scan is
     * open; close it soon.
     */
    DigestScan scan(long notBefore, LongSupplier clock) {
        long stamp = lock.readLock();
        if (builtAt < notBefore) {
            lock.unlockRead(stamp);
            stamp = lock.writeLock();
            try {
                if (builtAt < notBefore) {
                    build(clock);
                }
            } catch (RuntimeException e) {
                lock.unlockWrite(stamp);
                throw e;
            }
            stamp = lock.tryConvertToReadLock(stamp); // always succeeds from the write lock
        }
        try {
            long held = stamp;
            RocksRangeCursor cursor = cursors.open(handle, Digest.hashPrefix(0), null);
            return new RocksDigestScan(cursor, () -> lock.unlockRead(held));
        } catch (RuntimeException e) {
            lock.unlockRead(stamp);
            throw e;
        }
    }

    private void build(LongSupplier clock) {
        long started = System.nanoTime();
        builtAt = Long.MIN_VALUE; // the family is emptied next: a build that fails leaves no index anyone reuses
        try {
            ColumnFamilyHandle fresh = isEmpty() ? handle : anew();
            handle = fresh;
            Directories.deleteTree(work);
            Files.createDirectories(work);
            try {
                long at = clock.getAsLong(); // before the iterator: the snapshot holds every write before it
                long n = index(fresh);
                builtAt = at;
                builds++;
                log.info(
                        "digest index for repair built: {} records in {} ms",
                        n,
                        (System.nanoTime() - started) / 1_000_000);
            } finally {
                Directories.deleteTree(work);
            }
        } catch (RocksDBException | IOException e) {
            throw new StoreException("building the digest index failed: " + e.getMessage(), e);
        }
    }

    /** Sorts every record's digest by ring hash and ingests them as table files into the (empty) family. */
    private long index(ColumnFamilyHandle into) throws IOException, RocksDBException {
        long n = 0;
        List<String> files;
        try (ExternalSorter sort = new ExternalSorter(
                        work.resolve("sort"), SORT_BYTES, (a, ao, al, b, bo, bl) -> false); // one digest per key
                ReadOptions read = new ReadOptions().setFillCache(false); // leave the block cache to the requests
                RocksIterator it = db.newIterator(records, read)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                if (closing) { // the store waits for this build before it closes the database
                    throw new StoreException("store is closed", null);
                }
                byte[] key = it.key();
                sort.add(Digest.entryKey(key), Digest.entryValue(Record.decode(it.value())));
                n++;
            }
            it.status();
            try (SortedCursor sorted = sort.sorted();
                    Options table = options.combined();
                    TableFiles tables = new TableFiles(table, work, "digests")) {
                while (sorted.next()) {
                    if (closing) {
                        throw new StoreException("store is closed", null);
                    }
                    tables.put(
                            Arrays.copyOfRange(
                                    sorted.keyBuffer(), sorted.keyOffset(), sorted.keyOffset() + sorted.keyLength()),
                            Arrays.copyOfRange(
                                    sorted.valueBuffer(),
                                    sorted.valueOffset(),
                                    sorted.valueOffset() + sorted.valueLength()));
                }
                files = tables.finish();
            }
        }
        if (!files.isEmpty()) {
            try (IngestExternalFileOptions ingest =
                    new IngestExternalFileOptions().setMoveFiles(true).setAllowGlobalSeqNo(true)) {
                db.ingestExternalFile(into, files, ingest);
            }
        }
        return n;
    }

    private boolean isEmpty() {
        try (ReadOptions read = new ReadOptions().setFillCache(false);
                RocksIterator it = db.newIterator(handle, read)) {
            it.seekToFirst();
            return !it.isValid();
        }
    }

    /** Drops the family and makes it anew, empty (dropping is cheap: RocksDB deletes its files). */
    private ColumnFamilyHandle anew() throws RocksDBException {
        db.dropColumnFamily(handle);
        handle.close();
        return db.createColumnFamily(new ColumnFamilyDescriptor(NAME.getBytes(StandardCharsets.UTF_8), options.family));
    }
}
