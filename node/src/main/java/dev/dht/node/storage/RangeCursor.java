package dev.dht.node.storage;

/**
 * A forward scan over [from, to) in ascending unsigned byte order of keys, tombstones included (the caller
 * decides: a local range hides them, a cluster merge needs them). Not thread-safe; the owner must close it.
 * After {@link #close()} (also when the store closes it) {@link #next()} returns false.
 */
public interface RangeCursor extends AutoCloseable {
    /** Moves to the next record; false at the end of the range or once closed. */
    boolean next();

    /** Key of the current record (a fresh array). */
    byte[] key();

    /** The current record (wraps a fresh array). */
    Record record();

    @Override
    void close();
}
