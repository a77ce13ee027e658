package dev.dht.node.api;

import dev.dht.node.http.ChunkSource;
import dev.dht.node.http.RangeHandler;
import dev.dht.node.http.RangeRequest;
import dev.dht.node.http.Responder;
import dev.dht.node.storage.RangeCursor;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;

/**
 * /v0/entities on the local store: live records of [start, end) streamed in key order, tombstones hidden. An
 * internal request (the cluster range merging every member's records) gets every record, tombstones included, in
 * the framed format of {@link RangeFrame}.
 */
public final class LocalRangeHandler implements RangeHandler {
    private final Store store;

    public LocalRangeHandler(Store store) {
        this.store = store;
    }

    @Override
    public void handle(RangeRequest request, Responder responder) {
        RangeCursor cursor = store.range(request.start(), request.end());
        responder.stream(request.internal() ? new FramedRecords(cursor) : new LiveRecords(cursor));
    }

    /** Adapts a store cursor to the chunk writer, skipping tombstones. */
    static final class LiveRecords implements ChunkSource {
        private final RangeCursor cursor;
        private byte[] key;
        private Record record;

        LiveRecords(RangeCursor cursor) {
            this.cursor = cursor;
        }

        @Override
        public boolean next() {
            while (cursor.next()) {
                Record r = cursor.record();
                if (!r.isTombstone()) {
                    key = cursor.key();
                    record = r;
                    return true;
                }
            }
            key = null;
            record = null;
            return false;
        }

        @Override
        public byte[] key() {
            return key;
        }

        @Override
        public byte[] valueArray() {
            return record.encoded();
        }

        @Override
        public int valueOffset() {
            return record.valueOffset();
        }

        @Override
        public int valueLength() {
            return record.valueLength();
        }

        @Override
        public void close() {
            cursor.close();
        }
    }

    /** Every record, tombstones included, one {@link RangeFrame} per chunk. */
    static final class FramedRecords implements ChunkSource {
        private final RangeCursor cursor;
        private byte[] key;
        private Record record;

        FramedRecords(RangeCursor cursor) {
            this.cursor = cursor;
        }

        @Override
        public boolean next() {
            if (cursor.next()) {
                key = cursor.key();
                record = cursor.record();
                return true;
            }
            key = null;
            record = null;
            return false;
        }

        @Override
        public byte[] key() {
            return key;
        }

        @Override
        public byte[] valueArray() {
            return record.encoded();
        }

        @Override
        public int valueOffset() {
            return 0;
        }

        @Override
        public int valueLength() {
            return record.encoded().length;
        }

        @Override
        public int chunkLength() {
            return RangeFrame.length(key, record);
        }

        @Override
        public void writeChunk(byte[] dst, int offset) {
            RangeFrame.write(key, record, dst, offset);
        }

        @Override
        public void close() {
            cursor.close();
        }
    }
}
