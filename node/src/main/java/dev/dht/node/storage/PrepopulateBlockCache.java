package dev.dht.node.storage;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns on RocksDB's prepopulate_block_cache=kFlushOnly for one column family of an open database.
 *
 * <p>Why this way: rocksdbjni 9.10's BlockBasedTableConfig has no setter for the option, and its public
 * {@code RocksDB.setOptions} only passes the keys of a MutableColumnFamilyOptions. RocksDB's SetOptions itself accepts
 * table options ({@code block_based_table_factory={...}}, applied to a copy of the current table options, so the block
 * cache and filter stay); the Java API reaches it through one private native method that takes the keys and values
 * as strings, which is what we call. If a later rocksdbjni renames it, the node logs a warning and runs without
 * prepopulation (slower after each flush, not wrong); RocksStoreTest fails on the pinned version if it stops working.
 */
final class PrepopulateBlockCache {
    private static final Logger log = LoggerFactory.getLogger(PrepopulateBlockCache.class);

    private PrepopulateBlockCache() {}

    /** True if RocksDB took the option. */
    static boolean onFlush(RocksDB db, ColumnFamilyHandle family) {
        try {
            Method setOptions = RocksDB.class.getDeclaredMethod(
                    "setOptions", long.class, long.class, String[].class, String[].class);
            setOptions.setAccessible(true);
            setOptions.invoke(
                    null,
                    db.getNativeHandle(),
                    family.getNativeHandle(),
                    new String[] {"block_based_table_factory"},
                    new String[] {"{prepopulate_block_cache=kFlushOnly;}"});
            return true;
        } catch (InvocationTargetException e) { // RocksDB refused the option
            log.warn("prepopulate_block_cache not set: {}", e.getCause().toString());
            return false;
        } catch (ReflectiveOperationException | RuntimeException e) { // another rocksdbjni: no such method
            log.warn(
                    "prepopulate_block_cache not set (this rocksdbjni has no private setOptions(long, long, "
                            + "String[], String[])): {}",
                    e.toString());
            return false;
        }
    }
}
