package dev.dht.node.storage;

import dev.dht.node.ring.XxHash64;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The digest family: one entry per record, written in the same RocksDB write as the record (the key's ring hash,
 * the key, the record's timestamp and hash: {@link Digest}), read by repair's scans. Kept by the store, not by a
 * side table's owner, because it must never disagree with the records: every write of a record stages its digest
 * here ({@link #stage}), and an open without the completeness marker indexes the records again ({@link #index}).
 */
final class DigestFamily {
    private static final Logger log = LoggerFactory.getLogger(DigestFamily.class);

    static final String NAME = "digests";
    /**
     * The family's one entry that is not a digest, written in the same RocksDB write as the last digests of an
     * indexing: the family is complete. Its key is empty, so it sorts before every entry (8-byte ring hash first)
     * and no scan reaches it (they all seek to a ring hash); it lives and dies with the family it vouches for.
     */
    static final byte[] INDEXED = new byte[0];

    private static final byte[] INDEXED_VALUE = {1};
    /** Entries of the mutable memtable above which a scan flushes it first (see RocksOptions' digest options). */
    static final long SCAN_FLUSH_ENTRIES = 16_384;

    /** Opens a cursor on a family of the store, tracked so that the store closes it with itself. */
    interface Cursors {
        RocksRangeCursor open(ColumnFamilyHandle family, byte[] from, byte[] to);
    }

    private final RocksDB db;
    private final ColumnFamilyHandle handle;
    private final ReadOptions read;
    private final Cursors cursors;

    DigestFamily(RocksDB db, ColumnFamilyHandle handle, ReadOptions read, Cursors cursors) {
        this.db = db;
        this.handle = handle;
        this.read = read;
        this.cursors = cursors;
    }

    ColumnFamilyHandle handle() {
        return handle;
    }

    /** Puts the record's digest into the batch that writes the record. */
    void stage(WriteBatch batch, byte[] key, Record record) throws RocksDBException {
        batch.put(handle, Digest.entryKey(key), Digest.entryValue(record));
    }

    /** Deletes the key's digest in the batch that deletes the record. */
    void delete(WriteBatch batch, byte[] key) throws RocksDBException {
        batch.delete(handle, Digest.entryKey(key));
    }

    DigestCursor digests(long fromHash, long toHash) {
        return cursor(Digest.hashPrefix(fromHash), toHash);
    }

    DigestCursor digestsAfter(long hash, byte[] key, long toHash) {
        byte[] entry = Digest.entryKey(hash, key);
        return cursor(Arrays.copyOf(entry, entry.length + 1), toHash); // just after that entry
    }

    private DigestCursor cursor(byte[] from, long toHash) {
        // upper bound: the first entry of toHash + 1, none when toHash is the top of the space
        return new RocksDigestCursor(scanCursor(from, toHash == -1L ? null : Digest.hashPrefix(toHash + 1)));
    }

    DigestScan scan() {
        return new RocksDigestScan(scanCursor(Digest.hashPrefix(0), null));
    }

    private RocksRangeCursor scanCursor(byte[] from, byte[] to) {
        flushBeforeScan();
        return cursors.open(handle, from, to);
    }

    /**
     * A scan of the family's mutable (vector) memtable copies and sorts it: with more than
     * {@link #SCAN_FLUSH_ENTRIES} in it, the family is flushed first (sorted once, by the flush) and the scan reads
     * tables. Scans run on repair's background threads, which may wait.
     */
    private void flushBeforeScan() {
        if (entriesInMemory() > SCAN_FLUSH_ENTRIES) {
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                db.flush(flush, handle);
            } catch (RocksDBException e) {
                throw new StoreException("flush of the digests before a scan failed: " + e.getMessage(), e);
            }
        }
    }

    /** Entries in the family's mutable memtable (-1 when RocksDB gives no figure). */
    long entriesInMemory() {
        try {
            return db.getLongProperty(handle, "rocksdb.num-entries-active-mem-table");
        } catch (RocksDBException e) {
            return -1;
        }
    }

    Digest digest(byte[] key) {
        try {
            long hash = XxHash64.hash(key);
            byte[] v = db.get(handle, read, Digest.entryKey(hash, key));
            return v == null ? null : Digest.decode(Digest.entryKey(hash, key), v);
        } catch (RocksDBException e) {
            throw new StoreException("get failed: " + e.getMessage(), e);
        }
    }

    // ---- at open ---------------------------------------------------------------------------------------------------

    /** What {@link #index} left: the family's handle, and how many records it indexed (-1: it was complete). */
    record Indexed(ColumnFamilyHandle handle, long records) {}

    /**
     * Makes the family complete at open: complete only if the marker says so (the family is created at the open
     * that starts indexing, so its existence proves nothing if that open died half-way); otherwise emptied and
     * every record's digest written anew.
     */
    static Indexed index(RocksDB db, ColumnFamilyHandle family, ColumnFamilyHandle records, RocksOptions options)
            throws RocksDBException {
        if (db.get(family, options.read, INDEXED) != null) {
            return new Indexed(family, -1);
        }
        ColumnFamilyHandle empty = emptied(db, family, options);
        return new Indexed(empty, indexExistingRecords(db, empty, records, options));
    }

    /**
     * The family without entries: a family with no marker may hold what an indexing cut short, or a version that
     * did not maintain it, left there (digests of records since removed), so it is dropped and made anew, not
     * trusted. A store of the version before the marker (a whole family, no marker) is rebuilt once after the
     * upgrade: the same entries again.
     */
    private static ColumnFamilyHandle emptied(RocksDB db, ColumnFamilyHandle family, RocksOptions options)
            throws RocksDBException {
        try (ReadOptions read = new ReadOptions().setFillCache(false); // leave the block cache as it was
                RocksIterator it = db.newIterator(family, read)) {
            it.seekToFirst();
            if (!it.isValid()) {
                return family; // created at this open, or a new store
            }
        }
        db.dropColumnFamily(family);
        family.close();
        return db.createColumnFamily(
                new ColumnFamilyDescriptor(NAME.getBytes(StandardCharsets.UTF_8), options.digests));
    }

    /**
     * Writes the digest of every record into the (empty) family, then the marker in the same write as the last
     * batch: an open that dies before it leaves no marker, and the next one starts again.
     */
    private static long indexExistingRecords(
            RocksDB db, ColumnFamilyHandle family, ColumnFamilyHandle records, RocksOptions options)
            throws RocksDBException {
        long n = 0;
        try (ReadOptions read = new ReadOptions().setFillCache(false);
                RocksIterator it = db.newIterator(records, read);
                WriteBatch batch = new WriteBatch()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] key = it.key();
                batch.put(family, Digest.entryKey(key), Digest.entryValue(Record.decode(it.value())));
                if (++n % 1024 == 0) {
                    db.write(options.write, batch);
                    batch.clear();
                }
            }
            it.status();
            batch.put(family, INDEXED, INDEXED_VALUE);
            db.write(options.write, batch);
        }
        if (n > 0) {
            log.info("indexed the digests of {} existing records for repair", n);
        }
        return n;
    }
}
