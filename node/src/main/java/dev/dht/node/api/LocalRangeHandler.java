package dev.dht.node.api;

import dev.dht.node.http.ChunkSource;
import dev.dht.node.http.RangeHandler;
import dev.dht.node.http.RangeRequest;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.storage.RangeCursor;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;

/** /v0/entities on the local store: live records of [start, end) streamed in key order, tombstones hidden. */
public final class LocalRangeHandler implements RangeHandler {
    private final Store store;

    public LocalRangeHandler(Store store) {
        this.store = store;
    }

    @Override
    public void handle(RangeRequest request, Responder responder) {
        if (request.internal()) {
            responder.fail(Responses.NOT_IMPLEMENTED, "node-to-node requests are served by the cluster version");
            return;
        }
        responder.stream(new LiveRecords(store.range(request.start(), request.end())));
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
}
