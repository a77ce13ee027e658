package dev.dht.node.storage;

/** Stored bytes that are not a record this version can read (unknown version, truncated). */
public final class CorruptRecordException extends StoreException {
    private static final long serialVersionUID = 1L;

    public CorruptRecordException(String message) {
        super(message, null);
    }
}
