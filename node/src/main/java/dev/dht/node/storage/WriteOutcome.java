package dev.dht.node.storage;

/**
 * What became of a write given to {@link Store#applyAtEndOfPass}: exactly one method is called, on the selector
 * thread, when the pass ends.
 */
public interface WriteOutcome {
    /** Stored, and in the WAL: it survives a crash of the process from now on. */
    void applied();

    /** Not stored: the stored record (given) supersedes it. */
    void notNewer(Record current);

    /**
     * Nothing done: deciding or writing would have had to wait (the current record is only on disk, RocksDB would
     * stall the write, or another thread holds the key's lock). Redo it where waiting is allowed.
     */
    void wouldBlock();

    /** The write failed in RocksDB; nothing is known to be stored. */
    void failed(StoreException e);
}
