package dev.dht.node.storage;

import java.util.Arrays;

/**
 * What is stored under a key: a value or a tombstone, with its hybrid-logical-clock timestamp.
 *
 * <p>The record is kept in its encoded form, the exact bytes RocksDB holds, so a GET hands the array RocksDB
 * returned straight to the response writer without copying the value out:
 * <pre>
 *   byte 0     format version (1)
 *   byte 1     flags: bit 0 = tombstone
 *   bytes 2-9  timestamp, big-endian (48 bits physical ms + 16 bits logical, see HybridLogicalClock)
 *   bytes 10-  value (absent for a tombstone; may be empty for a value)
 * </pre>
 * A new layout gets a new version byte; {@link #decode} rejects versions it does not know rather than guess.
 */
public final class Record {
    public static final byte VERSION = 1;
    public static final int HEADER_SIZE = 10;
    private static final int FLAG_TOMBSTONE = 1;

    private final byte[] encoded;

    private Record(byte[] encoded) {
        this.encoded = encoded;
    }

    public static Record value(long timestamp, byte[] value) {
        return value(timestamp, value, 0, value.length);
    }

    public static Record value(long timestamp, byte[] src, int offset, int length) {
        byte[] e = new byte[HEADER_SIZE + length];
        writeHeader(e, timestamp, false);
        System.arraycopy(src, offset, e, HEADER_SIZE, length);
        return new Record(e);
    }

    public static Record tombstone(long timestamp) {
        byte[] e = new byte[HEADER_SIZE];
        writeHeader(e, timestamp, true);
        return new Record(e);
    }

    /** Wraps bytes read from storage (no copy). */
    public static Record decode(byte[] encoded) {
        check(encoded, 0, encoded.length);
        return new Record(encoded);
    }

    /**
     * Checks an encoded record in place (as {@link #decode} does, without wrapping it).
     *
     * @throws CorruptRecordException it is not a record this version can read
     */
    public static void check(byte[] a, int offset, int length) {
        if (length < HEADER_SIZE) {
            throw new CorruptRecordException("record of " + length + " bytes is shorter than its header");
        }
        if (a[offset] != VERSION) {
            throw new CorruptRecordException("unknown record format version " + a[offset]);
        }
        if ((a[offset + 1] & FLAG_TOMBSTONE) != 0 && length != HEADER_SIZE) {
            throw new CorruptRecordException("tombstone carries " + (length - HEADER_SIZE) + " value bytes");
        }
    }

    /** The timestamp of the encoded record at offset (checked by {@link #check}). */
    public static long timestampAt(byte[] a, int offset) {
        long ts = 0;
        for (int i = 0; i < 8; i++) {
            ts = (ts << 8) | (a[offset + 2 + i] & 0xFF);
        }
        return ts;
    }

    private static void writeHeader(byte[] e, long timestamp, boolean tombstone) {
        e[0] = VERSION;
        e[1] = (byte) (tombstone ? FLAG_TOMBSTONE : 0);
        for (int i = 0; i < 8; i++) {
            e[2 + i] = (byte) (timestamp >>> (56 - 8 * i));
        }
    }

    /** Reads only the timestamp of an encoded record (for the last-write-wins check). */
    static long timestampOf(byte[] encoded) {
        return timestampAt(encoded, 0);
    }

    public long timestamp() {
        return timestampOf(encoded);
    }

    public boolean isTombstone() {
        return (encoded[1] & FLAG_TOMBSTONE) != 0;
    }

    public int valueOffset() {
        return HEADER_SIZE;
    }

    public int valueLength() {
        return encoded.length - HEADER_SIZE;
    }

    /** A copy of the value bytes (empty for a tombstone). */
    public byte[] value() {
        return Arrays.copyOfRange(encoded, HEADER_SIZE, encoded.length);
    }

    /** The stored bytes; callers must not modify them. */
    public byte[] encoded() {
        return encoded;
    }

    /** The same content with another timestamp. */
    public Record withTimestamp(long timestamp) {
        byte[] e = encoded.clone();
        writeHeader(e, timestamp, isTombstone());
        return new Record(e);
    }

    /**
     * Last-write-wins order: the later timestamp wins; on a tie (two coordinators may hand out the same hybrid
     * timestamp) a tombstone beats a value and then the larger value bytes win, so every replica converges to
     * the same record whatever order the writes reached it in.
     */
    public boolean supersedes(Record other) {
        return compareEncoded(encoded, other.encoded) > 0;
    }

    static int compareEncoded(byte[] a, byte[] b) {
        return compareEncoded(a, 0, a.length, b, 0, b.length);
    }

    /** {@link #supersedes}'s order between two encoded records given as ranges (checked by {@link #check}). */
    public static int compareEncoded(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        int c = Long.compare(timestampAt(a, aOffset), timestampAt(b, bOffset));
        if (c != 0) {
            return c;
        }
        c = Integer.compare(a[aOffset + 1] & FLAG_TOMBSTONE, b[bOffset + 1] & FLAG_TOMBSTONE);
        if (c != 0) {
            return c;
        }
        return Arrays.compareUnsigned(
                a, aOffset + HEADER_SIZE, aOffset + aLength, b, bOffset + HEADER_SIZE, bOffset + bLength);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Record r && Arrays.equals(encoded, r.encoded);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(encoded);
    }

    @Override
    public String toString() {
        return (isTombstone() ? "tombstone" : "value[" + valueLength() + "]") + "@" + timestamp();
    }
}
