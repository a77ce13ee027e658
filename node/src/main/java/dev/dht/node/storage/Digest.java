package dev.dht.node.storage;

import dev.dht.node.ring.XxHash64;

/**
 * What the digest index ({@link DigestIndex}) holds for one record: enough to compare replicas without reading
 * values. The index is ordered by the key's ring hash, then the key, so the keys of any arc of the ring are one
 * contiguous scan (the records family is in key order, which repair cannot use: docs/cluster.md, "Repair").
 * <pre>
 *   entry key    ring hash (8 bytes, big-endian: unsigned order) + the record's key
 *   entry value  flags (1 byte, bit 0 = tombstone) + timestamp (8 bytes) + XXH64 of the encoded record (8 bytes)
 * </pre>
 *
 * @param hash       the key's ring hash ({@code Ring.keyHash}: XXH64, seed 0)
 * @param key        the record's key
 * @param timestamp  the record's timestamp
 * @param tombstone  whether the record is a tombstone
 * @param recordHash XXH64 of the encoded record: equal exactly when the stored versions are equal
 */
public record Digest(long hash, byte[] key, long timestamp, boolean tombstone, long recordHash) {
    static final int VALUE_SIZE = 17;

    /** The digest of a record as stored. */
    public static Digest of(byte[] key, Record record) {
        byte[] e = record.encoded();
        return new Digest(
                XxHash64.hash(key), key, record.timestamp(), record.isTombstone(), XxHash64.hash(e, 0, e.length, 0));
    }

    static byte[] entryKey(byte[] key) {
        return entryKey(XxHash64.hash(key), key);
    }

    static byte[] entryKey(long hash, byte[] key) {
        byte[] k = new byte[8 + key.length];
        putLong(k, 0, hash);
        System.arraycopy(key, 0, k, 8, key.length);
        return k;
    }

    static byte[] entryValue(Record record) {
        byte[] e = record.encoded();
        byte[] v = new byte[VALUE_SIZE];
        v[0] = (byte) (record.isTombstone() ? 1 : 0);
        putLong(v, 1, record.timestamp());
        putLong(v, 9, XxHash64.hash(e, 0, e.length, 0));
        return v;
    }

    static Digest decode(byte[] entryKey, byte[] value) {
        if (entryKey.length < 8 || value.length != VALUE_SIZE) {
            throw new CorruptRecordException("digest entry of " + entryKey.length + "/" + value.length + " bytes");
        }
        byte[] key = java.util.Arrays.copyOfRange(entryKey, 8, entryKey.length);
        return new Digest(getLong(entryKey, 0), key, getLong(value, 1), (value[0] & 1) != 0, getLong(value, 9));
    }

    /** The first entry key of a ring hash (for seeks and upper bounds). */
    static byte[] hashPrefix(long hash) {
        byte[] k = new byte[8];
        putLong(k, 0, hash);
        return k;
    }

    static void putLong(byte[] a, int at, long v) {
        for (int i = 0; i < 8; i++) {
            a[at + i] = (byte) (v >>> (56 - 8 * i));
        }
    }

    static long getLong(byte[] a, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (a[at + i] & 0xFF);
        }
        return v;
    }

    /** Whether this digest describes the same stored version as another (the key is not compared). */
    public boolean sameVersion(Digest other) {
        return other != null
                && recordHash == other.recordHash
                && timestamp == other.timestamp
                && tombstone == other.tombstone;
    }

    /**
     * Last-write-wins order between two digests of one key, as {@link Record#supersedes}: later timestamp, then a
     * tombstone over a value. Two different values with the same timestamp (possible, rare) compare equal here:
     * the caller then reads both records to decide.
     */
    public int compareVersion(Digest other) {
        int c = Long.compare(timestamp, other.timestamp);
        if (c != 0) {
            return c;
        }
        return Boolean.compare(tombstone, other.tombstone);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Digest d && hash == d.hash && java.util.Arrays.equals(key, d.key) && sameVersion(d);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(hash) * 31 + Long.hashCode(recordHash);
    }

    @Override
    public String toString() {
        return new String(key, java.nio.charset.StandardCharsets.UTF_8) + "@" + timestamp
                + (tombstone ? "(tombstone)" : "");
    }
}
