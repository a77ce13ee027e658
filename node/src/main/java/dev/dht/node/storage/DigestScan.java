package dev.dht.node.storage;

/**
 * One view of the digest family for many spans in a row: a repair batch asks for thousands of arcs' summaries,
 * and the family's memtable is a vector, which RocksDB copies and sorts for every iterator made on it (5 ms per
 * iterator at 16k entries: a batch of 3072 arcs took 16 s with an iterator per arc). A scan holds one iterator,
 * sorted once, and moves it to each span. What it reads is the family as it was when the scan was made. Not
 * thread-safe; one span's cursor at a time (a new span ends the previous one); the owner must close it.
 */
public interface DigestScan extends AutoCloseable {
    /** The digests whose ring hash is within [fromHash, toHash], compared unsigned, in (hash, key) order. */
    DigestCursor digests(long fromHash, long toHash);

    @Override
    void close();
}
