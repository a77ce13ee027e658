package dev.dht.node.storage;

import dev.dht.node.natives.NativeLibraries;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A backed-up member's RocksDB directory (a checkpoint), opened read-only: its records in key order as the member
 * held them, timestamps and tombstones included. Opened as a whole database, never file by file: RocksDB's own
 * deletes (a purged tombstone, a cleanup after a move) live in newer files than the values they hide, and only the
 * database applies them across files.
 */
public final class CheckpointReader implements AutoCloseable {
    static {
        NativeLibraries.loadRocksDb();
    }

    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;
    private final List<ColumnFamilyHandle> handles = new ArrayList<>();
    private final RocksDB db;
    private final int recordsFamily;
    private final Set<RocksRangeCursor> cursors = ConcurrentHashMap.newKeySet();

    public CheckpointReader(Path dir) {
        this.dbOptions = new DBOptions().setMaxOpenFiles(64);
        this.cfOptions = new ColumnFamilyOptions();
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        try (Options listing = new Options(dbOptions, cfOptions)) {
            for (byte[] name : RocksDB.listColumnFamilies(listing, dir.toString())) {
                descriptors.add(new ColumnFamilyDescriptor(name, cfOptions));
            }
            if (descriptors.isEmpty()) {
                throw new StoreException("no RocksDB database in " + dir, null);
            }
            this.db = RocksDB.openReadOnly(dbOptions, dir.toString(), descriptors, handles);
            int index = 0;
            for (int i = 0; i < descriptors.size(); i++) {
                if (java.util.Arrays.equals(descriptors.get(i).getName(), RocksDB.DEFAULT_COLUMN_FAMILY)) {
                    index = i;
                }
            }
            this.recordsFamily = index;
        } catch (RocksDBException e) {
            close(handles, cfOptions, dbOptions);
            throw new StoreException("cannot open the checkpoint in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The records (the default column family) with from <= key, tombstones included. */
    public RangeCursor records(byte[] from) {
        RocksRangeCursor c = new RocksRangeCursor(db, handles.get(recordsFamily), from, null, cursors::remove);
        cursors.add(c);
        return c;
    }

    /** RocksDB's estimate of the records' keys. */
    public long estimatedKeys() {
        try {
            return db.getLongProperty(handles.get(recordsFamily), "rocksdb.estimate-num-keys");
        } catch (RocksDBException e) {
            return -1;
        }
    }

    @Override
    public void close() {
        for (RocksRangeCursor c : List.copyOf(cursors)) {
            c.close();
        }
        for (ColumnFamilyHandle h : handles) {
            h.close();
        }
        db.close();
        cfOptions.close();
        dbOptions.close();
    }

    private static void close(List<ColumnFamilyHandle> handles, ColumnFamilyOptions cf, DBOptions db) {
        handles.forEach(ColumnFamilyHandle::close);
        cf.close();
        db.close();
    }
}
