package dev.dht.node.replication;

import dev.dht.node.storage.Record;

/**
 * One member's records of a range, in key order, tombstones included: an input of the cluster range merge. A
 * source holds the record it last moved to (its key and record are read once per step: the merge asks for them
 * many times).
 */
abstract class RangeSource implements AutoCloseable {
    private byte[] key;
    private Record record;

    /** Moves to the next record (and puts it {@link #at}); false at the end. Throws if the member's stream fails. */
    abstract boolean advance();

    /** Where {@link #advance} puts the record it moved to; true, for advance to return. */
    final boolean at(byte[] key, Record record) {
        this.key = key;
        this.record = record;
        return true;
    }

    final byte[] key() {
        return key;
    }

    final Record record() {
        return record;
    }

    @Override
    public abstract void close();
}
