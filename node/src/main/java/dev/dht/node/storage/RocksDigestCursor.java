package dev.dht.node.storage;

/** {@link DigestCursor} over the digest family: a {@link RocksRangeCursor} whose entries are decoded as digests. */
final class RocksDigestCursor implements DigestCursor {
    private final RocksRangeCursor cursor;

    RocksDigestCursor(RocksRangeCursor cursor) {
        this.cursor = cursor;
    }

    @Override
    public boolean next() {
        return cursor.next();
    }

    @Override
    public Digest digest() {
        return Digest.decode(cursor.key(), cursor.value());
    }

    @Override
    public void close() {
        cursor.close();
    }
}
