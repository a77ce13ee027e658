package dev.dht.node.http;

/**
 * Records to stream as a chunked body, one chunk per record. By default a chunk is key, '\n', value (the public
 * range format); a source may frame its chunks differently by overriding {@link #chunkLength} and
 * {@link #writeChunk} (the internal range of the cluster does). Called under the session's lock, from the worker
 * that started the response and then from a selector thread as the socket drains.
 */
public interface ChunkSource extends AutoCloseable {
    /** Moves to the next record; false at the end. May throw if the underlying scan fails. */
    boolean next();

    byte[] key();

    byte[] valueArray();

    int valueOffset();

    int valueLength();

    /** Bytes of the current record's chunk payload. */
    default int chunkLength() {
        return key().length + 1 + valueLength();
    }

    /** Writes the current record's chunk payload at dst[offset..offset + chunkLength()). */
    default void writeChunk(byte[] dst, int offset) {
        byte[] key = key();
        System.arraycopy(key, 0, dst, offset, key.length);
        dst[offset + key.length] = '\n';
        System.arraycopy(valueArray(), valueOffset(), dst, offset + key.length + 1, valueLength());
    }

    /** Releases the underlying scan; idempotent. */
    @Override
    void close();
}
