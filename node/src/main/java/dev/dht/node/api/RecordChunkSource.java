package dev.dht.node.api;

import dev.dht.node.http.ChunkSource;
import dev.dht.node.storage.Record;

/**
 * A {@link ChunkSource} over stored records: it stands on one key and {@link Record} at a time, and its chunk is
 * that key and the record's value (the public range format). Subclasses say only how they move from one record to
 * the next ({@link #next}, with {@link #at} and {@link #end}) and what they release on {@link #close}.
 */
public abstract class RecordChunkSource implements ChunkSource {
    private byte[] key;
    private Record record;

    /** Stands on key and record; returns true, for {@link #next} to return. */
    protected final boolean at(byte[] key, Record record) {
        this.key = key;
        this.record = record;
        return true;
    }

    /** Stands on nothing: the range is over; returns false, for {@link #next} to return. */
    protected final boolean end() {
        key = null;
        record = null;
        return false;
    }

    /** The record stood on. */
    protected final Record record() {
        return record;
    }

    @Override
    public final byte[] key() {
        return key;
    }

    @Override
    public final byte[] valueArray() {
        return record.encoded();
    }

    @Override
    public final int valueOffset() {
        return record.valueOffset();
    }

    @Override
    public final int valueLength() {
        return record.valueLength();
    }
}
