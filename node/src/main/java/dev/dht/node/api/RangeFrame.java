package dev.dht.node.api;

import dev.dht.node.storage.Record;
import java.util.Arrays;

/**
 * One record of an internal range answer, the payload of one HTTP chunk:
 * <pre>
 *   bytes 0-3   key length, big-endian
 *   key bytes
 *   the encoded record (format version, flags, timestamp, value: see Record), to the end of the chunk
 * </pre>
 * The key length makes the frame unambiguous whatever bytes the key holds; the record keeps its storage encoding,
 * so a replica streams what RocksDB returned and the merging node decodes it with the same codec.
 */
public final class RangeFrame {
    private RangeFrame() {}

    public static int length(byte[] key, Record record) {
        return 4 + key.length + record.encoded().length;
    }

    public static void write(byte[] key, Record record, byte[] dst, int offset) {
        int n = key.length;
        dst[offset] = (byte) (n >>> 24);
        dst[offset + 1] = (byte) (n >>> 16);
        dst[offset + 2] = (byte) (n >>> 8);
        dst[offset + 3] = (byte) n;
        System.arraycopy(key, 0, dst, offset + 4, n);
        byte[] e = record.encoded();
        System.arraycopy(e, 0, dst, offset + 4 + n, e.length);
    }

    /** The key of a frame. */
    public static byte[] key(byte[] frame) {
        int n = keyLength(frame);
        return Arrays.copyOfRange(frame, 4, 4 + n);
    }

    /** The record of a frame. */
    public static Record record(byte[] frame) {
        int n = keyLength(frame);
        return Record.decode(Arrays.copyOfRange(frame, 4 + n, frame.length));
    }

    private static int keyLength(byte[] frame) {
        if (frame.length < 4) {
            throw new IllegalArgumentException("range frame of " + frame.length + " bytes");
        }
        int n = ((frame[0] & 0xFF) << 24) | ((frame[1] & 0xFF) << 16) | ((frame[2] & 0xFF) << 8) | (frame[3] & 0xFF);
        if (n < 0 || 4 + n > frame.length) {
            throw new IllegalArgumentException("range frame key length " + n + " beyond the frame");
        }
        return n;
    }
}
