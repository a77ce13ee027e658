package dev.dht.node.sorting;

import java.util.Arrays;

/**
 * Entries packed into one byte array ({@code [key length][value length][key][value]}, lengths as 4-byte ints) and
 * an index of their offsets, sorted in place of objects: a million small entries cost no million objects, and the
 * memory a sort uses is the array it was given.
 */
final class Slab {
    private static final int HEADER = 8;

    private final byte[] data;
    private int used;
    private int[] starts = new int[4096];
    private int count;

    Slab(int bytes) {
        this.data = new byte[bytes];
    }

    static int size(int keyLength, int valueLength) {
        return HEADER + keyLength + valueLength;
    }

    int capacity() {
        return data.length;
    }

    boolean fits(int keyLength, int valueLength) {
        return (long) used + size(keyLength, valueLength) <= data.length;
    }

    int count() {
        return count;
    }

    void add(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) {
        if (count == starts.length) {
            starts = Arrays.copyOf(starts, count * 2);
        }
        starts[count++] = used;
        putInt(used, keyLength);
        putInt(used + 4, valueLength);
        System.arraycopy(key, keyOffset, data, used + HEADER, keyLength);
        System.arraycopy(value, valueOffset, data, used + HEADER + keyLength, valueLength);
        used += size(keyLength, valueLength);
    }

    void clear() {
        used = 0;
        count = 0;
    }

    /**
     * Sorts the index by key: a natural merge sort, which finds the ascending runs already there first (entries often
     * arrive as sorted batches: then a sort costs a merge of the batches, not a full sort). Stable.
     */
    void sort() {
        if (count < 2) {
            return;
        }
        int[] bounds = new int[count + 1];
        int runs = 0;
        bounds[runs++] = 0;
        for (int i = 1; i < count; i++) {
            if (compare(starts[i - 1], starts[i]) > 0) {
                bounds[runs++] = i;
            }
        }
        bounds[runs] = count;
        int[] src = starts;
        int[] dst = new int[starts.length];
        while (runs > 1) {
            int merged = 0;
            for (int r = 0; r < runs; r += 2) {
                int lo = bounds[r];
                int mid = bounds[Math.min(r + 1, runs)];
                int hi = bounds[Math.min(r + 2, runs)];
                merge(src, dst, lo, mid, hi);
                bounds[merged++] = lo;
            }
            bounds[merged] = count;
            runs = merged;
            int[] t = src;
            src = dst;
            dst = t;
        }
        starts = src;
    }

    private void merge(int[] src, int[] dst, int lo, int mid, int hi) {
        int i = lo;
        int j = mid;
        int k = lo;
        while (i < mid && j < hi) {
            dst[k++] = compare(src[j], src[i]) < 0 ? src[j++] : src[i++];
        }
        System.arraycopy(src, i, dst, k, mid - i);
        System.arraycopy(src, j, dst, k + (mid - i), hi - j);
    }

    private int compare(int a, int b) {
        int ka = a + HEADER;
        int kb = b + HEADER;
        return Arrays.compareUnsigned(data, ka, ka + getInt(a), data, kb, kb + getInt(b));
    }

    private void putInt(int at, int v) {
        data[at] = (byte) (v >>> 24);
        data[at + 1] = (byte) (v >>> 16);
        data[at + 2] = (byte) (v >>> 8);
        data[at + 3] = (byte) v;
    }

    private int getInt(int at) {
        return (data[at] & 0xFF) << 24 | (data[at + 1] & 0xFF) << 16 | (data[at + 2] & 0xFF) << 8 | data[at + 3] & 0xFF;
    }

    /** The sorted entries, one per key (the resolver picks among equal keys); call after {@link #sort}. */
    SortedCursor cursor(Resolver resolver) {
        return new SortedCursor() {
            private int next;
            private int current = -1;

            @Override
            public boolean next() {
                if (next >= count) {
                    current = -1;
                    return false;
                }
                int best = starts[next++];
                while (next < count && compare(starts[next], best) == 0) {
                    int other = starts[next++];
                    if (resolver.beats(data, other + HEADER + getInt(other), getInt(other + 4),
                            data, best + HEADER + getInt(best), getInt(best + 4))) {
                        best = other;
                    }
                }
                current = best;
                return true;
            }

            @Override
            public byte[] keyBuffer() {
                return data;
            }

            @Override
            public int keyOffset() {
                return current + HEADER;
            }

            @Override
            public int keyLength() {
                return getInt(current);
            }

            @Override
            public byte[] valueBuffer() {
                return data;
            }

            @Override
            public int valueOffset() {
                return current + HEADER + getInt(current);
            }

            @Override
            public int valueLength() {
                return getInt(current + 4);
            }

            @Override
            public void close() {
                next = count;
            }
        };
    }
}
