package dev.dht.node.storage;

import java.util.Arrays;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * A column family of the node's RocksDB beside the records, holding raw key/value bytes for one component (hinted
 * handoff keeps its hints here: same WAL, same durability, one database to back up). The owner must stop using it
 * before {@link RocksStore#close}; calls after that throw {@link StoreException}.
 */
public final class SideTable {
    private final RocksStore owner;
    private final RocksDB db;
    private final ColumnFamilyHandle family;
    private final WriteOptions writeOptions;

    SideTable(RocksStore owner, RocksDB db, ColumnFamilyHandle family, WriteOptions writeOptions) {
        this.owner = owner;
        this.db = db;
        this.family = family;
        this.writeOptions = writeOptions;
    }

    /** Receives entries in key order; returns false to stop. */
    @FunctionalInterface
    public interface Visitor {
        boolean visit(byte[] key, byte[] value);
    }

    public void put(byte[] key, byte[] value) {
        owner.checkOpen();
        try {
            db.put(family, writeOptions, key, value);
        } catch (RocksDBException e) {
            throw new StoreException("write failed: " + e.getMessage(), e);
        }
    }

    public void delete(byte[] key) {
        owner.checkOpen();
        try {
            db.delete(family, writeOptions, key);
        } catch (RocksDBException e) {
            throw new StoreException("delete failed: " + e.getMessage(), e);
        }
    }

    /** Whether the table holds the key now. */
    public boolean contains(byte[] key) {
        owner.checkOpen();
        try {
            return db.get(family, key) != null;
        } catch (RocksDBException e) {
            throw new StoreException("read failed: " + e.getMessage(), e);
        }
    }

    /** Visits the entries whose key starts with prefix (all entries for an empty prefix), in key order. */
    public void scan(byte[] prefix, Visitor visitor) {
        scanFrom(
                prefix,
                (key, value) -> key.length >= prefix.length
                        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)
                        && visitor.visit(key, value));
    }

    /** Visits the entries with key >= from, in key order, until the visitor returns false. */
    public void scanFrom(byte[] from, Visitor visitor) {
        owner.checkOpen();
        try (ReadOptions read = new ReadOptions().setFillCache(false);
                RocksIterator it = db.newIterator(family, read)) {
            if (from.length == 0) {
                it.seekToFirst();
            } else {
                it.seek(from);
            }
            for (; it.isValid(); it.next()) {
                if (!visitor.visit(it.key(), it.value())) {
                    return;
                }
            }
            it.status();
        } catch (RocksDBException e) {
            throw new StoreException("scan failed: " + e.getMessage(), e);
        }
    }
}
