package dev.dht.node.movement;

import dev.dht.node.storage.Record;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The body of {@code PUT /v0/internal/records}: records streamed during a move, as stored (timestamps and
 * tombstones included). Frames back to back: key length (4 bytes, big-endian), key, record length (4 bytes),
 * encoded record ({@link Record} layout). Repair sends records in the same frames, and restores the same batches
 * (dev.dht.node.restore).
 */
public final class RecordBatch {
    private byte[] buf = new byte[4096];
    private int size;
    private int count;

    public void add(byte[] key, Record record) {
        byte[] enc = record.encoded();
        ensure(8 + key.length + enc.length);
        putInt(key.length);
        System.arraycopy(key, 0, buf, size, key.length);
        size += key.length;
        putInt(enc.length);
        System.arraycopy(enc, 0, buf, size, enc.length);
        size += enc.length;
        count++;
    }

    public int bytes() {
        return size;
    }

    public int count() {
        return count;
    }

    public byte[] toBytes() {
        return Arrays.copyOf(buf, size);
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }

    private void putInt(int v) {
        buf[size] = (byte) (v >>> 24);
        buf[size + 1] = (byte) (v >>> 16);
        buf[size + 2] = (byte) (v >>> 8);
        buf[size + 3] = (byte) v;
        size += 4;
    }

    /** The decoded frames of a body; IllegalArgumentException when it is not well formed. */
    public record Decoded(List<byte[]> keys, List<Record> records) {}

    public static Decoded decode(byte[] body) {
        List<byte[]> keys = new ArrayList<>();
        List<Record> records = new ArrayList<>();
        int p = 0;
        while (p < body.length) {
            int keyLength = lengthAt(body, p);
            p += 4;
            if (keyLength <= 0 || keyLength > body.length - p) {
                throw new IllegalArgumentException("bad key length " + keyLength + " at byte " + (p - 4));
            }
            byte[] key = Arrays.copyOfRange(body, p, p + keyLength);
            p += keyLength;
            int recordLength = lengthAt(body, p);
            p += 4;
            if (recordLength < Record.HEADER_SIZE || recordLength > body.length - p) {
                throw new IllegalArgumentException("bad record length " + recordLength + " at byte " + (p - 4));
            }
            records.add(Record.decode(Arrays.copyOfRange(body, p, p + recordLength)));
            keys.add(key);
            p += recordLength;
        }
        return new Decoded(keys, records);
    }

    /**
     * The length field (4 bytes, big-endian) of a frame at p; IllegalArgumentException past the end of a. The one
     * decoder of the frames' lengths: the restore reads the same batches in place (dev.dht.node.restore).
     */
    public static int lengthAt(byte[] a, int p) {
        if (p + 4 > a.length) {
            throw new IllegalArgumentException("truncated frame at byte " + p);
        }
        return ((a[p] & 0xFF) << 24) | ((a[p + 1] & 0xFF) << 16) | ((a[p + 2] & 0xFF) << 8) | (a[p + 3] & 0xFF);
    }
}
