package dev.dht.node.storage;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.Holder;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;

/**
 * The records family ("default"): point reads, and last-write-wins writes (one by one, in groups, or tried
 * without waiting by a selector thread), each a read-compare-write under its key's stripe lock. A write is the
 * record alone: repair's index of the records is built from them when repair asks ({@link DigestIndex}).
 */
final class RecordFamily {
    private static final int STRIPES = 4096;
    /** Records per RocksDB write in {@link #applyAll}: bounds how long a group holds its stripe locks. */
    static final int APPLY_GROUP = 64;
    /** {@link #storedInMemory}'s answer when only the disk has the key's record. */
    static final byte[] ON_DISK = new byte[0];

    private final RocksDB db;
    private final ColumnFamilyHandle records;
    private final RocksOptions options;
    /**
     * Write locks striped by key: last-write-wins read-compare-write must not interleave for one key. Locks, not
     * monitors: a selector thread's pass group only ever tries them (PassWriteGroup), so it never waits for one.
     */
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

    private final LongAdder groups = new LongAdder();
    private final LongAdder groupedWrites = new LongAdder();

    RecordFamily(RocksDB db, ColumnFamilyHandle records, RocksOptions options) {
        this.db = db;
        this.records = records;
        this.options = options;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    ColumnFamilyHandle handle() {
        return records;
    }

    ReentrantLock stripe(byte[] key) {
        return stripes[stripeIndex(key)];
    }

    private static int stripeIndex(byte[] key) {
        int h = Arrays.hashCode(key) * 0x9E3779B9;
        return h >>> (32 - 12);
    }

    Record get(byte[] key) {
        try {
            byte[] v = db.get(records, options.read, key);
            return v == null ? null : Record.decode(v);
        } catch (RocksDBException e) {
            throw new StoreException("get failed: " + e.getMessage(), e);
        }
    }

    Record getIfInMemory(byte[] key) {
        try {
            byte[] v = db.get(records, options.memoryOnly, key);
            return v == null ? null : Record.decode(v);
        } catch (RocksDBException e) {
            if (isIncomplete(e)) {
                return Store.NOT_IN_MEMORY;
            }
            throw new StoreException("get failed: " + e.getMessage(), e);
        }
    }

    boolean applyIfNewer(byte[] key, Record record) {
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
                    db.write(options.write, batch);
                }
                return true;
            } finally {
                lock.unlock();
            }
        } catch (RocksDBException e) {
            throw new StoreException("write failed: " + e.getMessage(), e);
        }
    }

    /**
     * Groups of {@link #APPLY_GROUP} records, each group one RocksDB write under its keys' stripe locks (taken in
     * stripe order, so two groups never deadlock; pass groups only try locks). A key that repeats within a group
     * is compared against the group's own pending record.
     */
    int applyAll(List<byte[]> keys, List<Record> values) {
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
            Map<ByteBuffer, byte[]> pending = new HashMap<>();
            int stored = 0;
            for (int i = from; i < to; i++) {
                byte[] key = keys.get(i);
                byte[] encoded = values.get(i).encoded();
                ByteBuffer k = ByteBuffer.wrap(key);
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
                db.write(options.write, batch);
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
        return inMemory == ON_DISK ? db.get(records, options.read, key) : inMemory;
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

    Store.TryApply tryApplyIfNewer(byte[] key, Record record) {
        byte[] encoded = record.encoded();
        ReentrantLock lock = stripe(key);
        if (!lock.tryLock()) {
            return Store.TryApply.WOULD_BLOCK; // another thread is writing this key (or its stripe)
        }
        try {
            byte[] current = storedInMemory(key);
            if (current == ON_DISK) {
                return Store.TryApply.WOULD_BLOCK; // comparing would read the disk
            }
            if (current != null && !supersedes(encoded, current)) {
                return Store.TryApply.NOT_NEWER;
            }
            try (WriteBatch batch = new WriteBatch()) {
                stage(batch, key, record);
                db.write(options.noStall, batch); // Incomplete instead of a write stall
            }
            return Store.TryApply.APPLIED;
        } catch (RocksDBException e) {
            if (isIncomplete(e)) {
                return Store.TryApply.WOULD_BLOCK;
            }
            throw new StoreException("write failed: " + e.getMessage(), e);
        } finally {
            lock.unlock();
        }
    }

    /** The stored bytes from memory only: null if absent, {@link #ON_DISK} (by identity) if only the disk knows. */
    byte[] storedInMemory(byte[] key) {
        // One lookup without I/O (memtables, bloom filters, cached blocks): "no" is certain, so a new key costs no
        // read at all; "maybe" without the value means only the disk could tell. (A keyMayExist then a get looked
        // the key up twice; docs/node.md, "Defaults".)
        Holder<byte[]> found = new Holder<>();
        if (!db.keyMayExist(records, options.memoryOnly, key, found)) {
            return null;
        }
        return found.getValue() != null ? found.getValue() : ON_DISK;
    }

    /** Writes the batch unless RocksDB would stall or slow it down; false (nothing written) if it would. */
    boolean writeWithoutStall(WriteBatch batch) {
        try {
            db.write(options.noStall, batch);
            return true;
        } catch (RocksDBException e) {
            if (isIncomplete(e)) {
                return false;
            }
            throw new StoreException("write failed: " + e.getMessage(), e);
        }
    }

    /** Puts the record into a batch: every write of a record goes through here. */
    void stage(WriteBatch batch, byte[] key, Record record) throws RocksDBException {
        batch.put(records, key, record.encoded());
    }

    void countGroup(int writes) {
        groups.increment();
        groupedWrites.add(writes);
    }

    long writeGroups() {
        return groups.sum();
    }

    long groupedWrites() {
        return groupedWrites.sum();
    }

    /** RocksDB's answer when memoryOnly would need I/O, or noStall a stall. */
    private static boolean isIncomplete(RocksDBException e) {
        return e.getStatus() != null && e.getStatus().getCode() == Status.Code.Incomplete;
    }

    /** Whether the encoded record beats the stored bytes (which must be a record we can read). */
    static boolean supersedes(byte[] encoded, byte[] current) {
        Record.decode(current); // refuse to compare against bytes we cannot read
        return Record.compareEncoded(encoded, current) > 0;
    }

    /** Deletes the key only if it still holds exactly {@code expected}, under the key's write lock. */
    boolean removeIfSame(byte[] key, Record expected) {
        try {
            ReentrantLock lock = stripe(key);
            lock.lock();
            try {
                byte[] current = db.get(records, options.read, key);
                if (current == null || !Arrays.equals(current, expected.encoded())) {
                    return false;
                }
                db.delete(records, options.write, key);
                return true;
            } finally {
                lock.unlock();
            }
        } catch (RocksDBException e) {
            throw new StoreException("delete failed: " + e.getMessage(), e);
        }
    }
}
