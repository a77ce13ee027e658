package dev.dht.node.storage;

import dev.dht.node.natives.NativeLibraries;
import dev.dht.node.sorting.SortedCursor;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.DataBlockIndexType;
import org.rocksdb.Env;
import org.rocksdb.Filter;
import org.rocksdb.FlushOptions;
import org.rocksdb.Holder;
import org.rocksdb.HyperClockCache;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.Priority;
import org.rocksdb.ReadOptions;
import org.rocksdb.ReadTier;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.StatsLevel;
import org.rocksdb.Statistics;
import org.rocksdb.Status;
import org.rocksdb.TickerType;
import org.rocksdb.VectorMemTableConfig;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link Store} on RocksDB. This class owns every native handle it creates and closes them in one place
 * ({@link #close}); options objects are created once and reused for every call.
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
    /**
     * One entry per record, written in the same RocksDB write as the record: the key's ring hash, the key, the
     * record's timestamp and hash ({@link Digest}). Maintained here, not by a side table's owner, because it must
     * never disagree with the records.
     */
    static final String DIGESTS = "digests";
    /**
     * The digest family's one entry that is not a digest, written in the same RocksDB write as the last digests of
     * an indexing: the family is complete. Its key is empty, so it sorts before every entry (8-byte ring hash first)
     * and no scan reaches it (they all seek to a ring hash); it lives and dies with the family it vouches for.
     */
    static final byte[] INDEXED = new byte[0];
    private static final byte[] INDEXED_VALUE = {1};
    private static final List<String> KNOWN_FAMILIES = List.of(HINTS, DIGESTS, REPAIR);

    private static final int STRIPES = 4096;

    /**
     * WAL bytes up to which {@link #checkpoint} copies the WAL instead of flushing the memtables (RocksDB's
     * log_size_for_flush). The copy takes that much disk until the backup is uploaded, is uploaded with it (256 MiB:
     * about 30 s at the default --backup-rate) and downloaded by a restore. The WAL reaches back to the oldest
     * unflushed write of any family, and the digests' small entries fill a memtable slowly: a million writes of
     * 100-byte values through this store with the node's options (64 MiB memtables) left 160 MB of WAL, under the
     * limit. A WAL beyond it (a family that has not flushed for long) is flushed, as before.
     */
    static final long CHECKPOINT_WAL_LIMIT = 256L << 20;

    private final Path dir;
    private final boolean prepopulated;
    private final StorageOptions options;
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;
    /** The digest family's: see {@link #digestFamilyOptions}. */
    private final ColumnFamilyOptions digestOptions;
    private final Cache blockCache;
    private final Cache rowCache;
    private final Filter bloom;
    private final Statistics statistics;
    private final WriteOptions writeOptions;
    private final WriteOptions noStallWriteOptions;
    private final ReadOptions readOptions;
    private final ReadOptions memoryOnly;
    private final RocksDB db;
    private final List<ColumnFamilyHandle> handles;
    private final ColumnFamilyHandle records;
    private final ColumnFamilyHandle digests;
    private final List<String> familyNames = new ArrayList<>();
    /** Whether the directory held no database when the store opened: a new (or wiped) data directory. */
    private final boolean createdAtOpen;
    /** Records whose digests this open wrote; -1 when the family was already complete. */
    private final long indexedAtOpen;
    /**
     * Write locks striped by key: last-write-wins read-compare-write must not interleave for one key. Locks, not
     * monitors: a selector thread's pass group only ever tries them (PassWriteGroup), so it never waits for one.
     */
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    private final Set<RocksRangeCursor> openCursors = ConcurrentHashMap.newKeySet();
    /** One group per selector thread that writes: see {@link #applyAtEndOfPass}. */
    private final ThreadLocal<PassWriteGroup> passGroups = ThreadLocal.withInitial(() -> new PassWriteGroup(this));
    private final LongAdder groups = new LongAdder();
    private final LongAdder groupedWrites = new LongAdder();
    private volatile boolean closed;

    private RocksStore(Path dir, StorageOptions o) {
        this.dir = dir;
        this.options = o;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
        this.statistics = o.statistics() ? new Statistics() : null;
        if (statistics != null) {
            statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
        }
        this.dbOptions = new DBOptions()
                .setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setAllowConcurrentMemtableWrite(o.concurrentMemtableWrite())
                .setEnableWriteThreadAdaptiveYield(o.adaptiveYield())
                .setMaxOpenFiles(o.maxOpenFiles())
                .setMaxBackgroundJobs(Math.max(2, Runtime.getRuntime().availableProcessors()))
                .setBytesPerSync(1 << 20)
                // The WAL is kept until every family has flushed what it holds: a side family written rarely (hints,
                // repair) or in small entries (digests) held it back to RocksDB's default bound, several GB here, which
                // a restart replays and a backup (LiveCheckpoint) copies. Two memtables' worth: the records' own
                // flushes are never hurried, the side families flush when it is reached.
                .setMaxTotalWalSize(2 * o.writeBuffer())
                .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
                .setKeepLogFileNum(5)
                .setMaxLogFileSize(16 << 20);
        if (statistics != null) {
            dbOptions.setStatistics(statistics);
        }
        this.rowCache = o.rowCache() > 0 ? new LRUCache(o.rowCache()) : null;
        if (rowCache != null) {
            dbOptions.setRowCache(rowCache);
        }
        this.blockCache = o.hyperClockCache() ? new HyperClockCache(o.blockCache(), 0, -1, false)
                : new LRUCache(o.blockCache());
        this.bloom = o.bloomBitsPerKey() > 0 ? new BloomFilter(o.bloomBitsPerKey(), false) : null;
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockCache(blockCache)
                // Index and filter blocks live with the table readers, outside the block cache (RocksDB's default).
                // Inside a small cache they get evicted by data blocks and re-read on every miss: StoreBench saw
                // point reads fall from ~240k/s to ~4k/s with a 64 MiB cache (docs/node.md).
                .setCacheIndexAndFilterBlocks(false)
                .setBlockSize(o.blockSize())
                .setFormatVersion(5);
        if (o.blockHashIndex()) {
            table.setDataBlockIndexType(DataBlockIndexType.kDataBlockBinaryAndHash).setDataBlockHashTableUtilRatio(0.75);
        }
        if (bloom != null) {
            table.setFilterPolicy(bloom);
        }
        this.cfOptions = familyOptions(o, table);
        if (o.memtableBloomRatio() > 0) {
            cfOptions.setMemtableWholeKeyFiltering(true).setMemtablePrefixBloomSizeRatio(o.memtableBloomRatio());
        }
        this.digestOptions = digestFamilyOptions(o, new BlockBasedTableConfig().setBlockCache(blockCache)
                .setCacheIndexAndFilterBlocks(false).setBlockSize(o.blockSize()).setFormatVersion(5));
        this.writeOptions = new WriteOptions().setSync(false).setDisableWAL(false);
        // For writes from threads that must not wait: fail with Incomplete instead of sleeping in a write stall.
        this.noStallWriteOptions = new WriteOptions().setSync(false).setDisableWAL(false).setNoSlowdown(true);
        this.readOptions = new ReadOptions();
        // Reads for threads that must not block: memtables and block cache only, Incomplete if I/O would be needed.
        this.memoryOnly = new ReadOptions().setReadTier(ReadTier.BLOCK_CACHE_TIER);

        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions));
        familyNames.add("default");
        List<String> onDisk = familiesOnDisk(dir);
        for (String name : familiesToOpen(onDisk)) {
            descriptors.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8),
                    name.equals(DIGESTS) ? digestOptions : cfOptions));
            familyNames.add(name);
        }
        this.handles = new ArrayList<>();
        try {
            this.db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
        } catch (RocksDBException e) {
            closeOptions();
            throw new StoreException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
        }
        this.records = handles.get(0);
        this.createdAtOpen = onDisk == null;
        int d = familyNames.indexOf(DIGESTS);
        try {
            // Complete only if the marker says so: the family is created at the open that starts indexing, so its
            // existence proves nothing if that open died half-way.
            if (db.get(handles.get(d), readOptions, INDEXED) == null) {
                handles.set(d, emptied(handles.get(d)));
                this.indexedAtOpen = indexExistingRecords(handles.get(d));
            } else {
                this.indexedAtOpen = -1;
            }
        } catch (RocksDBException | RuntimeException e) {
            handles.forEach(ColumnFamilyHandle::close);
            db.close();
            closeOptions();
            throw e instanceof StoreException se ? se
                    : new StoreException("cannot index the digests in " + dir + ": " + e.getMessage(), e);
        }
        this.digests = handles.get(d);
        // After a flush the last version of every key written since the one before is in the new SST only; without
        // its blocks in the cache, the next write of each key cannot compare timestamps in memory and goes to a
        // worker and the disk (the memory-only lookup in storedInMemory). The records family only: the hot path.
        this.prepopulated = o.prepopulateOnFlush() && PrepopulateBlockCache.onFlush(db, records);
    }

    private static ColumnFamilyOptions familyOptions(StorageOptions o, BlockBasedTableConfig table) {
        return new ColumnFamilyOptions()
                .setCompactionStyle(o.compaction())
                .setCompressionType(o.compression())
                .setWriteBufferSize(o.writeBuffer())
                .setMaxWriteBufferNumber(3)
                .setDisableAutoCompactions(!o.autoCompactions())
                .setLevelCompactionDynamicLevelBytes(true)
                .setTableFormatConfig(table);
    }

    /**
     * The digest family is written by every write and read only by repair's scans, a few times a day, never by a
     * point lookup: its memtable is a vector, appended to (a skiplist insert at a random place, the key being a
     * ring hash, was ~30% of a PUT's CPU: a chain of cache misses), sorted once when it is flushed; and its tables
     * carry no bloom filter. A scan of the mutable memtable sorts a copy of it, so {@link #digestCursor} flushes
     * the family first when it holds many entries. The format on disk is the same (WAL entries, table files).
     */
    private static ColumnFamilyOptions digestFamilyOptions(StorageOptions o, BlockBasedTableConfig table) {
        ColumnFamilyOptions f = familyOptions(o, table);
        // RocksDB refuses a vector memtable with concurrent memtable writes (a StoreBench preset; never the node's)
        return o.concurrentMemtableWrite() ? f : f.setMemTableConfig(new VectorMemTableConfig());
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
        log.info("storage open: {} (options {}{})", dir.toAbsolutePath(), options.name(),
                store.prepopulatesOnFlush() ? ", flushed blocks cached" : "");
        return store;
    }

    /** Every family on disk (a newer version may have added some: they must be opened too) plus ours. */
    private static List<String> familiesToOpen(List<String> onDisk) {
        List<String> names = new ArrayList<>(KNOWN_FAMILIES);
        if (onDisk != null) {
            for (String s : onDisk) {
                if (!s.equals("default") && !names.contains(s)) {
                    names.add(s);
                }
            }
        }
        return names;
    }

    /** The families of an existing database, or null when the directory holds none yet. */
    private List<String> familiesOnDisk(Path dir) {
        if (!Files.exists(dir.resolve("CURRENT"))) {
            return null;
        }
        List<String> names = new ArrayList<>();
        try (Options listing = new Options(dbOptions, cfOptions)) {
            for (byte[] name : RocksDB.listColumnFamilies(listing, dir.toString())) {
                names.add(new String(name, StandardCharsets.UTF_8));
            }
        } catch (RocksDBException e) {
            throw new StoreException("cannot list column families in " + dir + ": " + e.getMessage(), e);
        }
        return names;
    }

    private boolean hasAny(ColumnFamilyHandle family) {
        try (ReadOptions read = new ReadOptions().setFillCache(false); // leave the block cache as it was
             RocksIterator it = db.newIterator(family, read)) {
            it.seekToFirst();
            return it.isValid();
        }
    }

    /**
     * The digest family without entries: a family with no marker may hold what an indexing cut short, or a version
     * that did not maintain it, left there (digests of records since removed), so it is dropped and made anew, not
     * trusted. A store of the version before the marker (a whole family, no marker) is rebuilt once after the upgrade:
     * the same entries again.
     */
    private ColumnFamilyHandle emptied(ColumnFamilyHandle family) throws RocksDBException {
        if (!hasAny(family)) {
            return family; // created at this open, or a new store
        }
        db.dropColumnFamily(family);
        family.close();
        return db.createColumnFamily(new ColumnFamilyDescriptor(DIGESTS.getBytes(StandardCharsets.UTF_8),
                digestOptions));
    }

    /**
     * Writes the digest of every record into the (empty) family, then the marker in the same write as the last
     * batch: an open that dies before it leaves no marker, and the next one starts again.
     */
    private long indexExistingRecords(ColumnFamilyHandle family) throws RocksDBException {
        long n = 0;
        try (ReadOptions read = new ReadOptions().setFillCache(false);
             RocksIterator it = db.newIterator(records, read);
             WriteBatch batch = new WriteBatch()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] key = it.key();
                batch.put(family, Digest.entryKey(key), Digest.entryValue(Record.decode(it.value())));
                if (++n % 1024 == 0) {
                    db.write(writeOptions, batch);
                    batch.clear();
                }
            }
            it.status();
            batch.put(family, INDEXED, INDEXED_VALUE);
            db.write(writeOptions, batch);
        }
        if (n > 0) {
            log.info("indexed the digests of {} existing records for repair", n);
        }
        return n;
    }

    /** Records whose digests this open wrote (a new store: 0); -1 when the marker said the family was complete. */
    long indexedAtOpen() {
        return indexedAtOpen;
    }

    /**
     * Whether the directory held no database when the store opened: a new data directory, or one whose content was
     * lost (a node restarted on its own directory is not new, even if it never stored a record).
     */
    public boolean createdAtOpen() {
        return createdAtOpen;
    }

    ReentrantLock stripe(byte[] key) {
        return stripes[stripeIndex(key)];
    }

    private static int stripeIndex(byte[] key) {
        int h = Arrays.hashCode(key) * 0x9E3779B9;
        return h >>> (32 - 12);
    }

    @Override
    public Record get(byte[] key) {
        try {
            byte[] v = db.get(records, readOptions, key);
            return v == null ? null : Record.decode(v);
        } catch (RocksDBException e) {
            throw new StoreException("get failed: " + e.getMessage(), e);
        }
    }

    @Override
    public Record getIfInMemory(byte[] key) {
        try {
            byte[] v = db.get(records, memoryOnly, key);
            return v == null ? null : Record.decode(v);
        } catch (RocksDBException e) {
            if (isIncomplete(e)) {
                return NOT_IN_MEMORY;
            }
            throw new StoreException("get failed: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean applyIfNewer(byte[] key, Record record) {
        byte[] encoded = record.encoded();
        try {
            ReentrantLock lock = stripe(key);
            lock.lock();
            try {
                byte[] current = stored(key);
                if (current != null && !supersedes(encoded, current)) {
                    return false;
                }
                try (WriteBatch batch = new WriteBatch()) {
                    stage(batch, key, record);
                    db.write(writeOptions, batch);
                }
                return true;
            } finally {
                lock.unlock();
            }
        } catch (RocksDBException e) {
            throw new StoreException("write failed: " + e.getMessage(), e);
        }
    }

    /** Records per RocksDB write in {@link #applyAllIfNewer}: bounds how long a group holds its stripe locks. */
    static final int APPLY_GROUP = 64;

    /**
     * Groups of {@link #APPLY_GROUP} records, each group one RocksDB write under its keys' stripe locks (taken in
     * stripe order, so two groups never deadlock; pass groups only try locks). A key that repeats within a group
     * is compared against the group's own pending record.
     */
    @Override
    public int applyAllIfNewer(List<byte[]> keys, List<Record> values) {
        checkOpen();
        int stored = 0;
        for (int from = 0; from < keys.size(); from += APPLY_GROUP) {
            stored += applyGroup(keys, values, from, Math.min(keys.size(), from + APPLY_GROUP));
        }
        return stored;
    }

    private int applyGroup(List<byte[]> keys, List<Record> values, int from, int to) {
        List<ReentrantLock> ordered = sortedStripes(keys, from, to);
        for (ReentrantLock lock : ordered) {
            lock.lock();
        }
        try (WriteBatch batch = new WriteBatch()) {
            java.util.Map<java.nio.ByteBuffer, byte[]> pending = new java.util.HashMap<>();
            int stored = 0;
            for (int i = from; i < to; i++) {
                byte[] key = keys.get(i);
                byte[] encoded = values.get(i).encoded();
                java.nio.ByteBuffer k = java.nio.ByteBuffer.wrap(key);
                byte[] current = pending.get(k);
                if (current == null) {
                    current = stored(key);
                }
                if (current != null && !supersedes(encoded, current)) {
                    continue;
                }
                stage(batch, key, values.get(i));
                pending.put(k, encoded);
                stored++;
            }
            if (stored > 0) {
                db.write(writeOptions, batch);
            }
            return stored;
        } catch (RocksDBException e) {
            throw new StoreException("write failed: " + e.getMessage(), e);
        } finally {
            for (int i = ordered.size() - 1; i >= 0; i--) {
                ordered.get(i).unlock();
            }
        }
    }

    /**
     * The stored bytes of key, or null: {@link #storedInMemory}'s one lookup without I/O ("no" is certain, so a new
     * key costs no read; a value found there is the newest), and a full read only for a key that only the disk can
     * settle. A restore sends every key once per backed-up replica: the later copies are settled in the memtable.
     */
    private byte[] stored(byte[] key) throws RocksDBException {
        byte[] inMemory = storedInMemory(key);
        return inMemory == ON_DISK ? db.get(records, readOptions, key) : inMemory;
    }

    /** The stripe locks of keys [from, to), in stripe order, each once. */
    private List<ReentrantLock> sortedStripes(List<byte[]> keys, int from, int to) {
        int[] idx = new int[to - from];
        for (int i = from; i < to; i++) {
            idx[i - from] = stripeIndex(keys.get(i));
        }
        Arrays.sort(idx);
        List<ReentrantLock> out = new ArrayList<>(idx.length);
        for (int i = 0; i < idx.length; i++) {
            if (i == 0 || idx[i] != idx[i - 1]) {
                out.add(stripes[idx[i]]);
            }
        }
        return out;
    }

    @Override
    public TryApply tryApplyIfNewer(byte[] key, Record record) {
        byte[] encoded = record.encoded();
        ReentrantLock lock = stripe(key);
        if (!lock.tryLock()) {
            return TryApply.WOULD_BLOCK; // another thread is writing this key (or its stripe)
        }
        try {
            byte[] current = storedInMemory(key);
            if (current == ON_DISK) {
                return TryApply.WOULD_BLOCK; // comparing would read the disk
            }
            if (current != null && !supersedes(encoded, current)) {
                return TryApply.NOT_NEWER;
            }
            try (WriteBatch batch = new WriteBatch()) {
                stage(batch, key, record);
                db.write(noStallWriteOptions, batch); // Incomplete instead of a write stall
            }
            return TryApply.APPLIED;
        } catch (RocksDBException e) {
            if (isIncomplete(e)) {
                return TryApply.WOULD_BLOCK;
            }
            throw new StoreException("write failed: " + e.getMessage(), e);
        } finally {
            lock.unlock();
        }
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

    /** {@link #storedInMemory}'s answer when only the disk has the key's record. */
    static final byte[] ON_DISK = new byte[0];

    /** The stored bytes from memory only: null if absent, {@link #ON_DISK} (by identity) if only the disk knows. */
    byte[] storedInMemory(byte[] key) {
        // One lookup without I/O (memtables, bloom filters, cached blocks): "no" is certain, so a new key costs no
        // read at all; "maybe" without the value means only the disk could tell. (A keyMayExist then a get looked
        // the key up twice; docs/node.md, "Defaults".)
        Holder<byte[]> found = new Holder<>();
        if (!db.keyMayExist(records, memoryOnly, key, found)) {
            return null;
        }
        return found.getValue() != null ? found.getValue() : ON_DISK;
    }

    /** Writes the batch unless RocksDB would stall or slow it down; false (nothing written) if it would. */
    boolean writeWithoutStall(WriteBatch batch) {
        try {
            db.write(noStallWriteOptions, batch);
            return true;
        } catch (RocksDBException e) {
            if (isIncomplete(e)) {
                return false;
            }
            throw new StoreException("write failed: " + e.getMessage(), e);
        }
    }

    ColumnFamilyHandle records() {
        return records;
    }

    /** Puts the record and its digest into a batch: every write of a record goes through here. */
    void stage(WriteBatch batch, byte[] key, Record record) throws RocksDBException {
        batch.put(records, key, record.encoded());
        batch.put(digests, Digest.entryKey(key), Digest.entryValue(record));
    }

    void countGroup(int writes) {
        groups.increment();
        groupedWrites.add(writes);
    }

    /** Pass groups applied ({@link #groupedWrites} / this is the mean group size). */
    public long writeGroups() {
        return groups.sum();
    }

    /** Writes that went through pass groups. */
    public long groupedWrites() {
        return groupedWrites.sum();
    }

    /** RocksDB's answer when memoryOnly would need I/O, or noStallWriteOptions a stall. */
    private static boolean isIncomplete(RocksDBException e) {
        return e.getStatus() != null && e.getStatus().getCode() == Status.Code.Incomplete;
    }

    /** Whether the encoded record beats the stored bytes (which must be a record we can read). */
    static boolean supersedes(byte[] encoded, byte[] current) {
        Record.decode(current); // refuse to compare against bytes we cannot read
        return Record.compareEncoded(encoded, current) > 0;
    }

    /**
     * Deletes the key only if it still holds exactly {@code expected}, under the key's write lock: a background
     * purge can never remove a record written after it looked. Returns whether it deleted.
     */
    public boolean removeIfSame(byte[] key, Record expected) {
        checkOpen();
        try {
            ReentrantLock lock = stripe(key);
            lock.lock();
            try {
                byte[] current = db.get(records, readOptions, key);
                if (current == null || !Arrays.equals(current, expected.encoded())) {
                    return false;
                }
                try (WriteBatch batch = new WriteBatch()) {
                    batch.delete(records, key);
                    batch.delete(digests, Digest.entryKey(key));
                    db.write(writeOptions, batch);
                }
                return true;
            } finally {
                lock.unlock();
            }
        } catch (RocksDBException e) {
            throw new StoreException("delete failed: " + e.getMessage(), e);
        }
    }

    /** A side table (column family) opened with the store, e.g. {@link #HINTS}. */
    public SideTable sideTable(String name) {
        int i = familyNames.indexOf(name);
        if (i <= 0) {
            throw new IllegalArgumentException("no column family '" + name + "' (known: " + familyNames + ")");
        }
        return new SideTable(this, db, handles.get(i), writeOptions);
    }

    void checkOpen() {
        if (closed) {
            throw new StoreException("store is closed", null);
        }
    }

    @Override
    public RangeCursor range(byte[] fromInclusive, byte[] toExclusive) {
        if (closed) {
            throw new StoreException("store is closed", null);
        }
        RocksRangeCursor cursor = new RocksRangeCursor(db, records, fromInclusive, toExclusive, openCursors::remove);
        openCursors.add(cursor);
        if (closed) { // close() ran between the check and the add: do not leak a cursor past the database
            cursor.close();
        }
        return cursor;
    }

    @Override
    public DigestCursor digests(long fromHash, long toHash) {
        return digestCursor(Digest.hashPrefix(fromHash), toHash);
    }

    @Override
    public DigestCursor digestsAfter(long hash, byte[] key, long toHash) {
        byte[] entry = Digest.entryKey(hash, key);
        return digestCursor(Arrays.copyOf(entry, entry.length + 1), toHash); // just after that entry
    }

    /** Entries of the digest family's mutable memtable above which a scan flushes it first (see digestFamilyOptions). */
    static final long SCAN_FLUSH_ENTRIES = 16_384;

    private DigestCursor digestCursor(byte[] from, long toHash) {
        // upper bound: the first entry of toHash + 1, none when toHash is the top of the space
        return new RocksDigestCursor(digestFamilyCursor(from, toHash == -1L ? null : Digest.hashPrefix(toHash + 1)));
    }

    @Override
    public DigestScan digestScan() {
        return new RocksDigestScan(digestFamilyCursor(Digest.hashPrefix(0), null));
    }

    private RocksRangeCursor digestFamilyCursor(byte[] from, byte[] to) {
        if (closed) {
            throw new StoreException("store is closed", null);
        }
        flushDigestsBeforeScan();
        RocksRangeCursor cursor = new RocksRangeCursor(db, digests, from, to, openCursors::remove);
        openCursors.add(cursor);
        if (closed) {
            cursor.close();
        }
        return cursor;
    }

    /**
     * A scan of the digest family's mutable (vector) memtable copies and sorts it: with more than
     * {@link #SCAN_FLUSH_ENTRIES} in it, the family is flushed first (sorted once, by the flush) and the scan reads
     * tables. Scans run on repair's background threads, which may wait.
     */
    private void flushDigestsBeforeScan() {
        if (digestEntriesInMemory() > SCAN_FLUSH_ENTRIES) {
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                db.flush(flush, digests);
            } catch (RocksDBException e) {
                throw new StoreException("flush of the digests before a scan failed: " + e.getMessage(), e);
            }
        }
    }

    /** Entries in the digest family's mutable memtable (-1 when RocksDB gives no figure). */
    long digestEntriesInMemory() {
        try {
            return db.getLongProperty(digests, "rocksdb.num-entries-active-mem-table");
        } catch (RocksDBException e) {
            return -1;
        }
    }

    @Override
    public Digest digest(byte[] key) {
        try {
            long hash = dev.dht.node.ring.XxHash64.hash(key);
            byte[] v = db.get(digests, readOptions, Digest.entryKey(hash, key));
            return v == null ? null : Digest.decode(Digest.entryKey(hash, key), v);
        } catch (RocksDBException e) {
            throw new StoreException("get failed: " + e.getMessage(), e);
        }
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
                ticker(TickerType.BLOCK_CACHE_HIT), ticker(TickerType.BLOCK_CACHE_MISS),
                blockCache.getUsage(),
                longProperty("rocksdb.is-write-stopped"),
                openCursors.size(),
                ticker(TickerType.FLUSH_WRITE_BYTES),
                ticker(TickerType.COMPACT_WRITE_BYTES));
    }

    /** A statistics ticker since the store opened; 0 when statistics are off. */
    private long ticker(TickerType type) {
        return statistics == null ? 0 : statistics.getTickerCount(type);
    }

    long longProperty(String name) {
        try {
            return db.getLongProperty(records, name);
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
        checkpoint(target, CHECKPOINT_WAL_LIMIT, () -> { });
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
                log.info("checkpoint {}: {} table files linked, {} WAL files ({} bytes) copied, nothing flushed",
                        target, o.tableFiles(), o.walFiles(), o.walBytes());
            }
            return o;
        } catch (RocksDBException | IOException e) {
            throw new StoreException("checkpoint into " + target + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Loads records sorted by key, one per key, as table files ingested whole, with their digests; a stored record
     * that supersedes an incoming one stays ({@link SortedIngest}: nothing may write these keys meanwhile).
     *
     * @param work      a directory of its own on the store's filesystem, for the files and the digests' sort
     * @param sortBytes memory for sorting the digests
     */
    public SortedIngest.Result ingestSorted(SortedCursor incoming, Path work, int sortBytes) {
        checkOpen();
        try (Options table = new Options(dbOptions, cfOptions)) {
            return new SortedIngest(db, records, digests, table, work).load(incoming, sortBytes);
        } catch (RocksDBException | IOException | IllegalArgumentException e) { // CorruptRecordException included
            throw new StoreException("loading sorted records failed: " + e.getMessage(), e);
        }
    }

    /** Writes the memtables out to SST files and waits (benchmarks measure the on-disk size this way). */
    public void flush() {
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush, List.of(records, digests)); // both: a WAL holding either is replayed on the next open
        } catch (RocksDBException e) {
            throw new StoreException("flush failed: " + e.getMessage(), e);
        }
    }

    public StorageOptions options() {
        return options;
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
        for (ColumnFamilyHandle handle : handles) {
            handle.close();
        }
        try {
            db.closeE();
        } catch (RocksDBException e) {
            log.warn("RocksDB close reported: {}", e.getMessage());
        }
        closeOptions();
        log.info("storage closed: {}", dir.toAbsolutePath());
    }

    private void closeOptions() {
        writeOptions.close();
        noStallWriteOptions.close();
        readOptions.close();
        memoryOnly.close();
        cfOptions.close();
        digestOptions.close();
        dbOptions.close();
        if (bloom != null) {
            bloom.close();
        }
        blockCache.close();
        if (rowCache != null) {
            rowCache.close();
        }
        if (statistics != null) {
            statistics.close();
        }
    }
}
