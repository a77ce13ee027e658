package dev.dht.node.storage;

import java.util.Arrays;

/** {@link DigestScan} on one {@link RocksRangeCursor} without an upper bound: each span stops at its own end. */
final class RocksDigestScan implements DigestScan {
    private final RocksRangeCursor cursor;
    /** Run once, at close: lets the index be built again. */
    private Runnable onClose;
    /** The current span's cursor (a new span ends it). */
    private Span span;

    RocksDigestScan(RocksRangeCursor cursor, Runnable onClose) {
        this.cursor = cursor;
        this.onClose = onClose;
    }

    @Override
    public DigestCursor digests(long fromHash, long toHash) {
        if (span != null) {
            span.done = true;
        }
        cursor.seek(Digest.hashPrefix(fromHash));
        span = new Span(toHash == -1L ? null : Digest.hashPrefix(toHash + 1));
        return span;
    }

    @Override
    public void close() {
        cursor.close();
        if (onClose != null) {
            Runnable r = onClose;
            onClose = null;
            r.run();
        }
    }

    private final class Span implements DigestCursor {
        /** The first entry past the span (null: the top of the space). */
        private final byte[] end;

        private boolean done;

        Span(byte[] end) {
            this.end = end;
        }

        @Override
        public boolean next() {
            if (done || !cursor.next() || end != null && Arrays.compareUnsigned(cursor.key(), end) >= 0) {
                done = true;
                return false;
            }
            return true;
        }

        @Override
        public Digest digest() {
            return Digest.decode(cursor.key(), cursor.value());
        }

        @Override
        public void close() {
            done = true;
        }
    }
}
