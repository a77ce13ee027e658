package dev.dht.node.replication;

import dev.dht.node.storage.Record;

/** Where a coordinator leaves a write that a replica missed (hinted handoff); {@link #NONE} when switched off. */
public interface HintSink {
    HintSink NONE = (peer, key, record) -> {};

    /** Keeps the record for the peer until it can be delivered; must not block for long (a local write). */
    void store(String peer, byte[] key, Record record);
}
