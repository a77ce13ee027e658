package dev.dht.node.api;

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
        responder.stream(new CursorRecords(cursor, request.internal()));
    }

    /**
     * The store's records of the range: the live ones in the public format, or (framed) every one, tombstones
     * included, one {@link RangeFrame} per chunk.
     */
    static final class CursorRecords extends RecordChunkSource {
        private final RangeCursor cursor;
        private final boolean framed;

        CursorRecords(RangeCursor cursor, boolean framed) {
            this.cursor = cursor;
            this.framed = framed;
        }

        @Override
        public boolean next() {
            while (cursor.next()) {
                Record r = cursor.record();
                if (framed || !r.isTombstone()) {
                    return at(cursor.key(), r);
                }
            }
            return end();
        }

        @Override
        public int chunkLength() {
            return framed ? RangeFrame.length(key(), record()) : super.chunkLength();
        }

        @Override
        public void writeChunk(byte[] dst, int offset) {
            if (framed) {
                RangeFrame.write(key(), record(), dst, offset);
            } else {
                super.writeChunk(dst, offset);
            }
        }

        @Override
        public void close() {
            cursor.close();
        }
    }
}
