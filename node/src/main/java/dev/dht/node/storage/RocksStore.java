package dev.dht.node.storage;

import dev.dht.node.natives.NativeLibraries;
import dev.dht.node.sorting.SortedCursor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.Env;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.Priority;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.TickerType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Store} on RocksDB: opens the database with its families ({@link RocksOptions}), serves the records
 * ({@link RecordFamily}), repair's index of them ({@link DigestIndex}), takes checkpoints ({@link LiveCheckpoint}) and
 * loads sorted records ({@link SortedIngest}). This class owns every native handle it creates and closes them in
 * one place ({@link #close}).
 *
 * <p>Durability: the WAL is on and every write goes to it before it is acknowledged (write(2), no fsync), so an
 * acknowledged write survives the death of the process (kill -9); a power loss may lose the last writes that the
 * OS had not flushed yet. A clean close syncs the WAL.
 */
public final class RocksStore implements Store {
    private static final Logger log = LoggerFactory.getLogger(RocksStore.class);

    static {
        NativeLibraries.loadRocksDb(); // once per library version into a cache, not into java.io.tmpdir at each start
        // Compactions run niced: on a small machine they otherwise preempt request threads and show up as latency
        // spikes (p99 at 20k PUT/s: 4-9 ms niced vs 8-12 ms not, docs/node.md); they still get every idle cycle,
        // and RocksDB's own write stalls bound the backlog.
        Env.getDefault().lowerThreadPoolCPUPriority(Priority.LOW);
    }

    /** Side tables this version uses besides "default" (which holds the records). */
    public static final String HINTS = "hints";
    /** Repair's bookkeeping (history of repaired ranges, progress of a round or a rebuild). */
    public static final String REPAIR = "repair";
    /** Inside the store's directory (RocksDB ignores it): the digest index's sort and table files while it builds. */
    static final String INDEX_WORK = "digest-index.build";

    /**
     * WAL bytes up to which {@link #checkpoint} copies the WAL instead of flushing the memtables (RocksDB's
     * log_size_for_flush). The copy takes that much disk until the backup is uploaded, is uploaded with it (256 MiB:
     * about 30 s at the default --backup-rate) and downloaded by a restore. The WAL reaches back to the oldest
     * unflushed write of any family: a million writes of 100-byte values through this store with the node's options
     * (64 MiB memtables) left 160 MB of WAL, under the limit. A WAL beyond it (a family that has not flushed for long)
     * is flushed, as before.
     */
    static final long CHECKPOINT_WAL_LIMIT = 256L << 20;

    private final Path dir;
    private final boolean prepopulated;
    private final StorageOptions storageOptions;
    private final RocksOptions options;
    private final RocksDB db;
    private final List<ColumnFamilyHandle> handles;
    private final List<String> familyNames = new ArrayList<>();
    private final RecordFamily records;
    private final DigestIndex digests;
    /** Whether the directory held no database when the store opened: a new (or wiped) data directory. */
    private final boolean createdAtOpen;

    private final Set<RocksRangeCursor> openCursors = ConcurrentHashMap.newKeySet();
    /** One group per selector thread that writes: see {@link #applyAtEndOfPass}. */
    private final ThreadLocal<PassWriteGroup> passGroups;

    private volatile boolean closed;

    private RocksStore(Path dir, StorageOptions o) {
        this.dir = dir;
        this.storageOptions = o;
        this.options = new RocksOptions(o);
        List<String> onDisk = options.familiesOnDisk(dir);
        List<ColumnFamilyDescriptor> descriptors = options.descriptors(onDisk, familyNames);
        this.handles = new ArrayList<>();
        try {
            this.db = RocksDB.open(options.db, dir.toString(), descriptors, handles);
        } catch (RocksDBException e) {
            options.close();
            throw new StoreException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
        }
        this.createdAtOpen = onDisk == null;
        this.records = new RecordFamily(db, handles.get(0), options);
        int d = familyNames.indexOf(DigestIndex.NAME);
        try {
            this.digests = new DigestIndex(
                    db, handles.get(d), records.handle(), options, dir.resolve(INDEX_WORK), this::cursor);
        } catch (RocksDBException | RuntimeException e) {
            handles.forEach(ColumnFamilyHandle::close);
            db.close();
            options.close();
            throw new StoreException("cannot empty the digest index in " + dir + ": " + e.getMessage(), e);
        }
        this.passGroups = ThreadLocal.withInitial(() -> new PassWriteGroup(records));
        // After a flush the last version of every key written since the one before is in the new SST only; without
        // its blocks in the cache, the next write of each key cannot compare timestamps in memory and goes to a
        // worker and the disk (the memory-only lookup in storedInMemory). The records family only: the hot path.
        this.prepopulated = o.prepopulateOnFlush() && PrepopulateBlockCache.onFlush(db, records.handle());
    }

    /** Whether flushes of the records family put their blocks into the block cache (options asked and RocksDB took). */
    boolean prepopulatesOnFlush() {
        return prepopulated;
    }

    /** Opens (creating if needed) the store in dir. */
    public static RocksStore open(Path dir, StorageOptions options) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new StoreException("cannot create data directory " + dir + ": " + e, e);
        }
        RocksStore store = new RocksStore(dir, options);
        log.info(
                "storage open: {} (options {}{})",
                dir.toAbsolutePath(),
                options.name(),
                store.prepopulatesOnFlush() ? ", flushed blocks cached" : "");
        return store;
    }

    /**
     * Whether the directory held no database when the store opened: a new data directory, or one whose content was
     * lost (a node restarted on its own directory is not new, even if it never stored a record).
     */
    public boolean createdAtOpen() {
        return createdAtOpen;
    }

    ReentrantLock stripe(byte[] key) {
        return records.stripe(key);
    }

    /** The records family, for a pass group of one's own (PassWriteGroupTest) and the bench's BlindPut. */
    RecordFamily recordFamily() {
        return records;
    }

    @Override
    public Record get(byte[] key) {
        return records.get(key);
    }

    @Override
    public Record getIfInMemory(byte[] key) {
        return records.getIfInMemory(key);
    }

    @Override
    public boolean applyIfNewer(byte[] key, Record record) {
        return records.applyIfNewer(key, record);
    }

    @Override
    public int applyAllIfNewer(List<byte[]> keys, List<Record> values) {
        checkOpen();
        return records.applyAll(keys, values);
    }

    @Override
    public TryApply tryApplyIfNewer(byte[] key, Record record) {
        return records.tryApplyIfNewer(key, record);
    }

    @Override
    public boolean applyAtEndOfPass(byte[] key, Record record, WriteOutcome outcome) {
        PassThread loop = PassThread.current();
        if (loop == null) {
            return false;
        }
        checkOpen();
        passGroups.get().add(loop, key, record, outcome);
        return true;
    }

    /** Pass groups applied ({@link #groupedWrites} / this is the mean group size). */
    public long writeGroups() {
        return records.writeGroups();
    }

    /** Writes that went through pass groups. */
    public long groupedWrites() {
        return records.groupedWrites();
    }

    /**
     * Deletes the key only if it still holds exactly {@code expected}, under the key's write lock: a background
     * purge can never remove a record written after it looked. Returns whether it deleted.
     */
    @Override
    public boolean removeIfSame(byte[] key, Record expected) {
        checkOpen();
        return records.removeIfSame(key, expected);
    }

    /** A side table (column family) opened with the store, e.g. {@link #HINTS}. */
    public SideTable sideTable(String name) {
        int i = familyNames.indexOf(name);
        if (i <= 0) {
            throw new IllegalArgumentException("no column family '" + name + "' (known: " + familyNames + ")");
        }
        return new SideTable(this, db, handles.get(i), options.write);
    }

    void checkOpen() {
        if (closed) {
            throw new StoreException("store is closed", null);
        }
    }

    @Override
    public RangeCursor range(byte[] fromInclusive, byte[] toExclusive) {
        return cursor(records.handle(), fromInclusive, toExclusive);
    }

    /** A cursor on a family, closed with the store if its user has not closed it by then. */
    private RocksRangeCursor cursor(ColumnFamilyHandle family, byte[] from, byte[] to) {
        checkOpen();
        RocksRangeCursor cursor = new RocksRangeCursor(db, family, from, to, openCursors::remove);
        openCursors.add(cursor);
        if (closed) { // close() ran between the check and the add: do not leak a cursor past the database
            cursor.close();
        }
        return cursor;
    }

    @Override
    public DigestScan digestScan(long notBefore, LongSupplier clock) {
        checkOpen();
        return digests.scan(notBefore, clock);
    }

    /** Digest indexes built since the open. */
    public long digestIndexBuilds() {
        return digests.builds();
    }

    @Override
    public StoreStats stats() {
        if (closed) {
            return new StoreStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        }
        return new StoreStats(
                longProperty("rocksdb.cur-size-all-mem-tables"),
                longProperty("rocksdb.estimate-pending-compaction-bytes"),
                longProperty("rocksdb.live-sst-files-size"),
                longProperty("rocksdb.estimate-num-keys"),
                options.ticker(TickerType.BLOCK_CACHE_HIT),
                options.ticker(TickerType.BLOCK_CACHE_MISS),
                options.blockCache.getUsage(),
                longProperty("rocksdb.is-write-stopped"),
                openCursors.size(),
                options.ticker(TickerType.FLUSH_WRITE_BYTES),
                options.ticker(TickerType.COMPACT_WRITE_BYTES));
    }

    long longProperty(String name) {
        try {
            return db.getLongProperty(records.handle(), name);
        } catch (RocksDBException e) {
            return -1;
        }
    }

    /**
     * A RocksDB checkpoint of every column family into target (which must not exist): hard links to the table files,
     * copies of the MANIFEST, OPTIONS and WAL files, without flushing the memtables ({@link LiveCheckpoint}); every
     * write applied before the call is in it, in a table file or in a copied WAL. With more than
     * {@link #CHECKPOINT_WAL_LIMIT} bytes of WAL it flushes instead. Backups upload it (dev.dht.node.backup).
     */
    public void checkpoint(Path target) {
        checkpoint(target, CHECKPOINT_WAL_LIMIT, () -> {});
    }

    /**
     * Whether a checkpoint taken earlier (by a process that died) can be used as it is: whole, and taken since the
     * machine last started ({@link LiveCheckpoint#intact}). If not, delete it and take another.
     */
    public static boolean checkpointIntact(Path target) {
        return LiveCheckpoint.intact(target);
    }

    /** Deletes a checkpoint and what marks it. */
    public static void deleteCheckpoint(Path target) {
        LiveCheckpoint.delete(target);
    }

    LiveCheckpoint.Outcome checkpoint(Path target, long walLimit, Runnable afterLiveFiles) {
        checkOpen();
        try {
            LiveCheckpoint.Outcome o = new LiveCheckpoint(db, dir, walLimit, afterLiveFiles).take(target);
            if (o.flushed()) {
                log.info("checkpoint {}: memtables flushed (the WAL was over {} bytes)", target, walLimit);
            } else {
                log.info(
                        "checkpoint {}: {} table files linked, {} WAL files ({} bytes) copied, nothing flushed",
                        target,
                        o.tableFiles(),
                        o.walFiles(),
                        o.walBytes());
            }
            return o;
        } catch (RocksDBException | IOException e) {
            throw new StoreException("checkpoint into " + target + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Loads records sorted by key, one per key, as table files ingested whole; a stored record that supersedes an
     * incoming one stays ({@link SortedIngest}: nothing may write these keys meanwhile).
     *
     * @param work a directory of its own on the store's filesystem, for the files
     */
    public SortedIngest.Result ingestSorted(SortedCursor incoming, Path work) {
        checkOpen();
        try (Options table = options.combined()) {
            return new SortedIngest(db, records.handle(), table, work).load(incoming);
        } catch (RocksDBException | IOException | IllegalArgumentException e) { // CorruptRecordException included
            throw new StoreException("loading sorted records failed: " + e.getMessage(), e);
        }
    }

    /** Writes the memtables out to SST files and waits (benchmarks measure the on-disk size this way). */
    public void flush() {
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush, records.handle());
        } catch (RocksDBException e) {
            throw new StoreException("flush failed: " + e.getMessage(), e);
        }
    }

    public StorageOptions options() {
        return storageOptions;
    }

    public Path dir() {
        return dir;
    }

    /**
     * Close order matters (use-after-free in native code otherwise): open cursors (they pin the database),
     * column family handles, the database, then the options and the objects they reference.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (RocksRangeCursor cursor : List.copyOf(openCursors)) {
            cursor.close();
        }
        try {
            db.flushWal(true);
        } catch (RocksDBException e) {
            log.warn("could not sync the WAL on close: {}", e.getMessage());
        }
        digests.close(); // its handle is not the one opened, once a build made the family anew
        for (ColumnFamilyHandle handle : handles) {
            handle.close();
        }
        try {
            db.closeE();
        } catch (RocksDBException e) {
            log.warn("RocksDB close reported: {}", e.getMessage());
        }
        options.close();
        log.info("storage closed: {}", dir.toAbsolutePath());
    }
}
