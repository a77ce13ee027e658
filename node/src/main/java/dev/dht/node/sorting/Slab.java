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
     * Sorts the index by key, stably. Entries that arrive as sorted batches (a few long ascending runs) are merged as
     * the runs they are; entries in no order (a sort by ring hash, whose keys start with 8 random bytes) are first
     * spread by their first two bytes, 65,536 buckets in one counting pass, and each bucket sorted on its own: a few
     * comparisons per entry instead of one per level of a merge sort.
     */
    void sort() {
        if (count < 2) {
            return;
        }
        int runs = 1;
        for (int i = 1; i < count; i++) {
            if (compare(starts[i - 1], starts[i]) > 0) {
                runs++;
            }
        }
        int[] scratch = new int[count];
        if (runs <= Math.max(1, count / 64)) {
            mergeSort(starts, scratch, 0, count);
            return;
        }
        int[] bucketStart = new int[BUCKETS + 1];
        for (int i = 0; i < count; i++) {
            bucketStart[bucket(starts[i]) + 1]++;
        }
        for (int b = 0; b < BUCKETS; b++) {
            bucketStart[b + 1] += bucketStart[b];
        }
        int[] next = Arrays.copyOf(bucketStart, BUCKETS);
        for (int i = 0; i < count; i++) {
            scratch[next[bucket(starts[i])]++] = starts[i];
        }
        System.arraycopy(scratch, 0, starts, 0, count);
        for (int b = 0; b < BUCKETS; b++) {
            if (bucketStart[b + 1] - bucketStart[b] > 1) {
                mergeSort(starts, scratch, bucketStart[b], bucketStart[b + 1]);
            }
        }
    }

    private static final int BUCKETS = 1 << 16;

    /** The key's first two bytes (a byte the key does not have counts as 0: the sort within the bucket decides). */
    private int bucket(int entry) {
        int length = getInt(entry);
        int key = entry + HEADER;
        int hi = length > 0 ? data[key] & 0xFF : 0;
        int lo = length > 1 ? data[key + 1] & 0xFF : 0;
        return hi << 8 | lo;
    }

    /** Sorts a[from, to) stably, scratch as large; short ranges by insertion, ascending runs found as they are. */
    private void mergeSort(int[] a, int[] scratch, int from, int to) {
        if (to - from <= 16) {
            for (int i = from + 1; i < to; i++) {
                int v = a[i];
                int j = i - 1;
                while (j >= from && compare(a[j], v) > 0) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = v;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(a, scratch, from, mid);
        mergeSort(a, scratch, mid, to);
        if (compare(a[mid - 1], a[mid]) <= 0) {
            return; // already in order: sorted batches cost one comparison per pair of halves
        }
        System.arraycopy(a, from, scratch, from, to - from);
        int i = from;
        int j = mid;
        int k = from;
        while (i < mid && j < to) {
            a[k++] = compare(scratch[j], scratch[i]) < 0 ? scratch[j++] : scratch[i++];
        }
        System.arraycopy(scratch, i, a, k, mid - i);
        System.arraycopy(scratch, j, a, k + (mid - i), to - j);
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
                    if (resolver.beats(
                            data,
                            other + HEADER + getInt(other),
                            getInt(other + 4),
                            data,
                            best + HEADER + getInt(best),
                            getInt(best + 4))) {
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
