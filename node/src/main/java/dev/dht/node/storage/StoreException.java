package dev.dht.node.storage;

/** A storage operation failed (RocksDB error, corrupt record, store closed). */
public class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
