package dev.dht.node.storage;

/**
 * One view of the digest index ({@link DigestIndex}) for many spans in a row: a repair batch asks for thousands of
 * arcs' summaries, and a scan holds one iterator and moves it to each span. What it reads is the index as it was
 * built; the index is not rebuilt while a scan is open. Not thread-safe; one span's cursor at a time (a new span
 * ends the previous one); the owner must close it, on any thread.
 */
public interface DigestScan extends AutoCloseable {
    /** The digests whose ring hash is within [fromHash, toHash], compared unsigned, in (hash, key) order. */
    DigestCursor digests(long fromHash, long toHash);

    @Override
    void close();
}
