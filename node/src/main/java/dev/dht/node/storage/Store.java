package dev.dht.node.storage;

/**
 * Local storage of timestamped records. Keys and records are opaque bytes here: the store never sees HTTP.
 * All methods are thread-safe.
 */
public interface Store extends AutoCloseable {

    /** The record under the key, tombstones included, or null if this store never saw the key. */
    Record get(byte[] key);

    /**
     * Last-write-wins apply: stores the record only if it {@link Record#supersedes supersedes} what is stored
     * (an absent key is older than any record). Returns whether it was stored. Writes of the same key are
     * serialised, so concurrent applies never lose the newest record. Replication, hinted handoff and read repair
     * all write through this.
     */
    boolean applyIfNewer(byte[] key, Record record);

    /**
     * Deletes the key only if it still holds exactly {@code expected} (compare-and-delete under the key's write
     * lock), so a purge never removes a record written after it looked. Returns whether it deleted.
     */
    boolean removeIfSame(byte[] key, Record expected);

    /** Records with from <= key < to (to == null: to the end), tombstones included. */
    RangeCursor range(byte[] fromInclusive, byte[] toExclusive);

    /** RocksDB figures for /metrics. */
    StoreStats stats();

    /** Closes open cursors, then the database; idempotent. */
    @Override
    void close();
}
