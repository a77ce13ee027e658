package dev.dht.node.storage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * StoreBench's baseline: a write with no last-write-wins check, so that the difference to
 * {@link RocksStore#applyIfNewer} is what the check costs. The node never writes this way, so this lives in the
 * bench module (in the storage package for RocksStore's package-private stripe lock and column family). It writes
 * exactly as the node's own puts do: the store's RocksDB handle and write options, read reflectively so that the
 * node's jar carries no benchmark-only method. It takes the key's stripe lock like every write, so it cannot break
 * a concurrent apply.
 */
public final class BlindPut {
    private static final VarHandle DB;
    private static final VarHandle OPTIONS;

    static {
        try {
            MethodHandles.Lookup store = MethodHandles.privateLookupIn(RocksStore.class, MethodHandles.lookup());
            DB = store.findVarHandle(RocksStore.class, "db", RocksDB.class);
            OPTIONS = store.findVarHandle(RocksStore.class, "options", RocksOptions.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private BlindPut() {}

    public static void put(RocksStore store, byte[] key, Record record) {
        ReentrantLock lock = store.stripe(key);
        lock.lock();
        try {
            ((RocksDB) DB.get(store))
                    .put(
                            store.recordFamily().handle(),
                            ((RocksOptions) OPTIONS.get(store)).write,
                            key,
                            record.encoded());
        } catch (RocksDBException e) {
            throw new StoreException("write failed: " + e.getMessage(), e);
        } finally {
            lock.unlock();
        }
    }
}
