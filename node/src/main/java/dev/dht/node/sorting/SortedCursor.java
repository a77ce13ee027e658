package dev.dht.node.sorting;

import java.io.IOException;

/**
 * Entries in ascending unsigned order of their keys, one per key. The key and value are views into buffers the
 * cursor owns: valid until the next call to {@link #next}, never to be modified.
 */
public interface SortedCursor extends AutoCloseable {
    /** Moves to the next entry; false at the end. */
    boolean next() throws IOException;

    byte[] keyBuffer();

    int keyOffset();

    int keyLength();

    byte[] valueBuffer();

    int valueOffset();

    int valueLength();

    @Override
    void close();
}
