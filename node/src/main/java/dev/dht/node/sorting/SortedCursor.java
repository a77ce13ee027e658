package dev.dht.node.sorting;

import java.io.IOException;
import java.util.List;

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

    /**
     * The merge of cursors that each hold a key at most once: one entry per key, the resolver picking among the
     * sources that hold it. Closing it closes them.
     */
    static SortedCursor merge(List<SortedCursor> sources, Resolver resolver) {
        return sources.size() == 1 ? sources.get(0) : new MergeCursor(sources, resolver);
    }

    /** The cursor, closing owner too when it is closed (what it reads from). */
    static SortedCursor closing(SortedCursor cursor, AutoCloseable owner) {
        return new SortedCursor() {
            @Override
            public boolean next() throws IOException {
                return cursor.next();
            }

            @Override
            public byte[] keyBuffer() {
                return cursor.keyBuffer();
            }

            @Override
            public int keyOffset() {
                return cursor.keyOffset();
            }

            @Override
            public int keyLength() {
                return cursor.keyLength();
            }

            @Override
            public byte[] valueBuffer() {
                return cursor.valueBuffer();
            }

            @Override
            public int valueOffset() {
                return cursor.valueOffset();
            }

            @Override
            public int valueLength() {
                return cursor.valueLength();
            }

            @Override
            public void close() {
                cursor.close();
                try {
                    owner.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing " + owner + ": " + e.getMessage(), e);
                }
            }
        };
    }
}
