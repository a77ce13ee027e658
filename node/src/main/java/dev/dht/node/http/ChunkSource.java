package dev.dht.node.http;

/**
 * Records to stream as a chunked body, one chunk per record: key, '\n', value. A local range adapts a store
 * cursor to this; the cluster range will adapt a k-way merge of replicas' streams. Called under the session's
 * lock, from the worker that started the response and then from a selector thread as the socket drains.
 */
public interface ChunkSource extends AutoCloseable {
    /** Moves to the next record; false at the end. May throw if the underlying scan fails. */
    boolean next();

    byte[] key();

    byte[] valueArray();

    int valueOffset();

    int valueLength();

    /** Releases the underlying scan; idempotent. */
    @Override
    void close();
}
