package dev.dht.node.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * XXH64, written from the xxHash specification (Yann Collet, "xxHash fast digest algorithm", doc/xxhash_spec.md
 * in the xxHash repository) and checked against that project's published sanity vectors (see {@code XxHash64Test}).
 *
 * <p>Why this hash for placement (docs/placement.md compares the alternatives): it is fast on the short ids the API
 * sees (about 6 ns for a 16-character id, docs/benchmarks/ring.md), every output bit depends on every input bit
 * (so "key1", "key2", ... spread like random keys), it takes a 64-bit seed (one per vnode), and it is specified
 * byte for byte, so any other program (a client, a tool, the operator) can reproduce the ring exactly. It is not a
 * cryptographic hash: nobody gains from steering keys to one node that could not already write to it.
 */
public final class XxHash64 {
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private XxHash64() {}

    /** XXH64 of all of {@code data} with seed 0. */
    public static long hash(byte[] data) {
        return hash(data, 0, data.length, 0);
    }

    /** XXH64 of {@code data[offset, offset + length)} with the given seed. */
    public static long hash(byte[] data, int offset, int length, long seed) {
        Objects.checkFromIndexSize(offset, length, data.length);
        int p = offset;
        int end = offset + length;
        long acc;
        if (length >= 32) {
            // spec step 1-2: four lanes over 32-byte stripes
            long v1 = seed + P1 + P2;
            long v2 = seed + P2;
            long v3 = seed;
            long v4 = seed - P1;
            int limit = end - 32;
            do {
                v1 = round(v1, (long) LONG_LE.get(data, p));
                v2 = round(v2, (long) LONG_LE.get(data, p + 8));
                v3 = round(v3, (long) LONG_LE.get(data, p + 16));
                v4 = round(v4, (long) LONG_LE.get(data, p + 24));
                p += 32;
            } while (p <= limit);
            // step 3: converge
            acc = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            acc = mergeLane(acc, v1);
            acc = mergeLane(acc, v2);
            acc = mergeLane(acc, v3);
            acc = mergeLane(acc, v4);
        } else {
            // step 1, short input
            acc = seed + P5;
        }
        // step 4: length
        acc += length;
        // step 5: the remaining bytes, 8, then 4, then 1 at a time
        while (p + 8 <= end) {
            acc ^= round(0, (long) LONG_LE.get(data, p));
            acc = Long.rotateLeft(acc, 27) * P1 + P4;
            p += 8;
        }
        if (p + 4 <= end) {
            acc ^= ((int) INT_LE.get(data, p) & 0xFFFFFFFFL) * P1;
            acc = Long.rotateLeft(acc, 23) * P2 + P3;
            p += 4;
        }
        while (p < end) {
            acc ^= (data[p] & 0xFFL) * P5;
            acc = Long.rotateLeft(acc, 11) * P1;
            p++;
        }
        return avalanche(acc);
    }

    /**
     * XXH64 of the 8 little-endian bytes of {@code value}: the same result as {@link #hash(byte[], int, int, long)}
     * over those bytes, without an array. Used to derive per-member scores from a key's hash.
     */
    public static long hashLong(long value, long seed) {
        long acc = seed + P5 + 8;
        acc ^= round(0, value);
        acc = Long.rotateLeft(acc, 27) * P1 + P4;
        return avalanche(acc);
    }

    private static long round(long acc, long lane) {
        acc += lane * P2;
        acc = Long.rotateLeft(acc, 31);
        return acc * P1;
    }

    private static long mergeLane(long acc, long lane) {
        acc ^= round(0, lane);
        return acc * P1 + P4;
    }

    private static long avalanche(long acc) {
        acc ^= acc >>> 33;
        acc *= P2;
        acc ^= acc >>> 29;
        acc *= P3;
        acc ^= acc >>> 32;
        return acc;
    }
}
