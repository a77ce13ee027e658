package dev.dht.node.storage;

/**
 * Local storage of timestamped records. Keys and records are opaque bytes here: the store never sees HTTP.
 * All methods are thread-safe.
 */
public interface Store extends AutoCloseable {

    /** The record under the key, tombstones included, or null if this store never saw the key. */
    Record get(byte[] key);

    /**
     * {@link #get} without I/O, for a thread that must not block (a selector): answers from the memtables and the
     * block cache only. Returns the record, null if the store certainly never saw the key, or {@link #NOT_IN_MEMORY}
     * (compare by identity) when answering would need a disk read; then nothing was done.
     */
    Record getIfInMemory(byte[] key);

    /** {@link #getIfInMemory}'s answer when the record is not in memory. Never stored, never sent. */
    Record NOT_IN_MEMORY = Record.tombstone(Long.MIN_VALUE);

    /**
     * Last-write-wins apply: stores the record only if it {@link Record#supersedes supersedes} what is stored
     * (an absent key is older than any record). Returns whether it was stored. Writes of the same key are
     * serialised, so concurrent applies never lose the newest record. Replication, hinted handoff and read repair
     * all write through this.
     */
    boolean applyIfNewer(byte[] key, Record record);

    /**
     * {@link #applyIfNewer} for many records (a batch streamed during a move): each is stored only if it supersedes
     * what is stored. Returns how many were stored. Implementations may group the writes; the default applies them
     * one by one.
     */
    default int applyAllIfNewer(java.util.List<byte[]> keys, java.util.List<Record> records) {
        int stored = 0;
        for (int i = 0; i < keys.size(); i++) {
            if (applyIfNewer(keys.get(i), records.get(i))) {
                stored++;
            }
        }
        return stored;
    }

    /**
     * {@link #applyIfNewer} for a thread that must not block: {@link TryApply#WOULD_BLOCK}, having changed nothing,
     * when the stored record is not in memory (the comparison would read the disk) or RocksDB would stall or slow
     * the write (too many memtables or L0 files). The caller then hands the write to a thread that may wait.
     */
    TryApply tryApplyIfNewer(byte[] key, Record record);

    /**
     * {@link #applyIfNewer} for a selector thread, grouped: the write joins the others this thread makes during the
     * current pass of its {@link PassThread} (the selector loop), and all of them are applied together when the pass
     * ends (one RocksDB write, one WAL write); the outcome comes then, on this thread. Returns false, having done
     * nothing, when the caller is not a selector loop. Reads during the pass do not see the write yet: answer
     * its request from the outcome, not before.
     */
    boolean applyAtEndOfPass(byte[] key, Record record, WriteOutcome outcome);

    /** Outcome of {@link #tryApplyIfNewer}. */
    enum TryApply {
        /** stored */
        APPLIED,
        /** not stored: the stored record supersedes it (what applyIfNewer reports as false) */
        NOT_NEWER,
        /** nothing done: it would have had to wait for the disk or a write stall */
        WOULD_BLOCK
    }

    /**
     * Deletes the key only if it still holds exactly {@code expected} (compare-and-delete under the key's write
     * lock), so a purge never removes a record written after it looked. Returns whether it deleted.
     */
    boolean removeIfSame(byte[] key, Record expected);

    /** Records with from <= key < to (to == null: to the end), tombstones included. */
    RangeCursor range(byte[] fromInclusive, byte[] toExclusive);

    /**
     * The digests ({@link Digest}: ring hash, key, timestamp, record hash) of the records, in (ring hash, key) order,
     * as they were at one moment at or after {@code notBefore} on {@code clock}: repair's index, which no write
     * maintains. When the index at hand is older, it is built again from the records first (one scan of them:
     * seconds for millions of records, so a call for a background thread). Writes after that moment are not in it.
     */
    DigestScan digestScan(long notBefore, java.util.function.LongSupplier clock);

    /** RocksDB figures for /metrics. */
    StoreStats stats();

    /** Closes open cursors, then the database; idempotent. */
    @Override
    void close();
}
