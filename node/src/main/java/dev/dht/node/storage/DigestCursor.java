package dev.dht.node.storage;

/**
 * A forward scan of the digest index in (ring hash, key) order over a closed interval of ring hashes. Not
 * thread-safe; the owner must close it. After {@link #close()} (also when the store closes it) {@link #next()}
 * returns false.
 */
public interface DigestCursor extends AutoCloseable {
    /** Moves to the next entry; false at the end of the interval or once closed. */
    boolean next();

    /** The current entry. */
    Digest digest();

    @Override
    void close();
}
