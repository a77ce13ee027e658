package dev.dht.node.replication;

import dev.dht.node.storage.Record;

/** One member's records of a range, in key order, tombstones included: an input of the cluster range merge. */
interface RangeSource extends AutoCloseable {
    /** Moves to the next record; false at the end. Throws if the member's stream fails. */
    boolean advance();

    byte[] key();

    Record record();

    @Override
    void close();
}
