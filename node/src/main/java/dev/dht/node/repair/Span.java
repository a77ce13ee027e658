package dev.dht.node.repair;

import java.util.ArrayList;
import java.util.List;

/**
 * A closed interval [lo, hi] of ring hashes, compared unsigned (lo &lt;= hi). An arc of the ring is one span, or two
 * for the arc that wraps around past the top of the space.
 */
record Span(long lo, long hi) {

    Span {
        if (Long.compareUnsigned(lo, hi) > 0) {
            throw new IllegalArgumentException(
                    "empty span [" + Long.toUnsignedString(lo) + ", " + Long.toUnsignedString(hi) + "]");
        }
    }

    /** The spans of the hashes in (afterExclusive, last], wrapping past the top when last &lt;= afterExclusive. */
    static List<Span> arc(long afterExclusive, long last) {
        List<Span> out = new ArrayList<>(2);
        if (Long.compareUnsigned(afterExclusive, last) < 0) {
            out.add(new Span(afterExclusive + 1, last));
        } else {
            if (afterExclusive != -1L) {
                out.add(new Span(afterExclusive + 1, -1L));
            }
            out.add(new Span(0, last));
        }
        return out;
    }

    boolean contains(long hash) {
        return Long.compareUnsigned(lo, hash) <= 0 && Long.compareUnsigned(hash, hi) <= 0;
    }

    /** Whether it holds a single hash (it cannot be split further). */
    boolean single() {
        return lo == hi;
    }

    /** Up to n spans of about equal width that tile this one, in order. */
    List<Span> split(int n) {
        List<Span> out = new ArrayList<>(n);
        long width = hi - lo; // unsigned: the span holds width + 1 hashes
        long step = Long.divideUnsigned(width, n) + 1;
        long start = lo;
        for (int i = 0; i < n; i++) {
            long end = start + step - 1;
            boolean last = i == n - 1 || Long.compareUnsigned(end, hi) >= 0 || Long.compareUnsigned(end, start) < 0;
            out.add(new Span(start, last ? hi : end));
            if (last) {
                break;
            }
            start = end + 1;
        }
        return out;
    }

    @Override
    public String toString() {
        return "[" + Long.toHexString(lo) + ", " + Long.toHexString(hi) + "]";
    }
}
