package dev.dht.node.storage;

import dev.dht.node.natives.NativeLibraries;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WALRecoveryMode;

/**
 * A backed-up member's RocksDB directory (a checkpoint), opened read-only: its records in key order as the member
 * held them, timestamps and tombstones included. Opened as a whole database, never file by file: RocksDB's own
 * deletes (a purged tombstone, a cleanup after a move) live in newer files than the values they hide, and only the
 * database applies them across files.
 *
 * <p>A checkpoint holds WAL files beside its table files ({@link LiveCheckpoint}): the open replays them into memory,
 * so the cursor returns the writes that were only in the member's memtables too. Only the records family is opened:
 * the replay then skips every WAL older than the records' last flush and inserts no other family's entries (a WAL can
 * reach far back when a side family has not flushed for long), so the time and memory it takes are about the records'
 * unflushed part.
 */
public final class CheckpointReader implements AutoCloseable {
    static {
        NativeLibraries.loadRocksDb();
    }

    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;
    private final List<ColumnFamilyHandle> handles = new ArrayList<>();
    private final RocksDB db;
    private final Set<RocksRangeCursor> cursors = ConcurrentHashMap.newKeySet();

    public CheckpointReader(Path dir) {
        // The last WAL was copied while RocksDB wrote it and may end inside a record: point-in-time recovery (RocksDB's
        // default, stated here because the checkpoint relies on it) stops there; absolute consistency would refuse.
        this.dbOptions = new DBOptions().setMaxOpenFiles(64).setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery);
        this.cfOptions = new ColumnFamilyOptions();
        try (Options listing = new Options(dbOptions, cfOptions)) {
            if (RocksDB.listColumnFamilies(listing, dir.toString()).isEmpty()) {
                throw new StoreException("no RocksDB database in " + dir, null);
            }
            // a subset of the families: allowed read-only
            this.db = RocksDB.openReadOnly(
                    dbOptions,
                    dir.toString(),
                    List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions)),
                    handles);
        } catch (RocksDBException e) {
            close(handles, cfOptions, dbOptions);
            throw new StoreException("cannot open the checkpoint in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The records (the default column family) with from <= key, tombstones included. */
    public RangeCursor records(byte[] from) {
        RocksRangeCursor c = new RocksRangeCursor(db, handles.get(0), from, null, cursors::remove);
        cursors.add(c);
        return c;
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
