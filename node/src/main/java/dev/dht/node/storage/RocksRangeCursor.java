package dev.dht.node.storage;

import java.util.function.Consumer;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * A RocksDB iterator over [from, to) with its ReadOptions and upper-bound Slice. Every method is synchronized:
 * the owner (a response being streamed) and {@link RocksStore#close} may race, and touching a closed native
 * iterator would crash the process rather than throw.
 */
final class RocksRangeCursor implements RangeCursor {
    private final ReadOptions readOptions;
    private final Slice upperBound;
    private final RocksIterator iterator;
    private final Consumer<RocksRangeCursor> onClose;
    private boolean started;
    private boolean closed;
    private byte[] key;
    private byte[] value;

    RocksRangeCursor(
            RocksDB db, ColumnFamilyHandle family, byte[] from, byte[] to, Consumer<RocksRangeCursor> onClose) {
        this.onClose = onClose;
        this.readOptions = new ReadOptions().setFillCache(false);
        this.upperBound = to == null ? null : new Slice(to);
        if (upperBound != null) {
            readOptions.setIterateUpperBound(upperBound);
        }
        this.iterator = db.newIterator(family, readOptions);
        iterator.seek(from);
    }

    @Override
    public synchronized boolean next() {
        if (closed) {
            return false;
        }
        if (started) {
            iterator.next();
        }
        started = true;
        if (!iterator.isValid()) {
            try {
                iterator.status();
            } catch (RocksDBException e) {
                close();
                throw new StoreException("range scan failed: " + e.getMessage(), e);
            }
            key = null;
            value = null;
            return false;
        }
        key = iterator.key();
        value = iterator.value();
        return true;
    }

    /** Moves back before the first entry at or after from: the next {@link #next} lands there (RocksDigestScan). */
    synchronized void seek(byte[] from) {
        if (!closed) {
            iterator.seek(from);
            started = false;
        }
    }

    @Override
    public synchronized byte[] key() {
        return key;
    }

    @Override
    public synchronized Record record() {
        return Record.decode(value);
    }

    /** The current value's raw bytes (another family than the records: the digests). */
    synchronized byte[] value() {
        return value;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Order: the iterator references the read options, which reference the slice.
        iterator.close();
        readOptions.close();
        if (upperBound != null) {
            upperBound.close();
        }
        onClose.accept(this);
    }
}
