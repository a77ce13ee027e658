package dev.dht.node.sorting;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The k-way merge of sorted cursors that each hold a key at most once: one entry per key, the resolver picking
 * among the sources that hold it. The entry returned is the winning source's own, so a source is advanced only at
 * the next call.
 */
final class MergeCursor implements SortedCursor {
    private final List<SortedCursor> sources;
    private final Resolver resolver;
    private final PriorityQueue<SortedCursor> heap;
    /** The sources of the entry returned last: advanced at the next call. */
    private final List<SortedCursor> taken = new ArrayList<>();

    private SortedCursor current;
    private boolean started;

    MergeCursor(List<SortedCursor> sources, Resolver resolver) {
        this.sources = sources;
        this.resolver = resolver;
        this.heap = new PriorityQueue<>(Math.max(1, sources.size()), MergeCursor::compareKeys);
    }

    private static int compareKeys(SortedCursor a, SortedCursor b) {
        return Arrays.compareUnsigned(
                a.keyBuffer(),
                a.keyOffset(),
                a.keyOffset() + a.keyLength(),
                b.keyBuffer(),
                b.keyOffset(),
                b.keyOffset() + b.keyLength());
    }

    @Override
    public boolean next() throws IOException {
        if (!started) {
            started = true;
            for (SortedCursor s : sources) {
                if (s.next()) {
                    heap.add(s);
                }
            }
        }
        for (SortedCursor s : taken) {
            if (s.next()) {
                heap.add(s);
            }
        }
        taken.clear();
        current = heap.poll();
        if (current == null) {
            return false;
        }
        taken.add(current);
        SortedCursor best = current;
        while (!heap.isEmpty() && compareKeys(heap.peek(), current) == 0) {
            SortedCursor other = heap.poll();
            taken.add(other);
            if (resolver.beats(
                    other.valueBuffer(),
                    other.valueOffset(),
                    other.valueLength(),
                    best.valueBuffer(),
                    best.valueOffset(),
                    best.valueLength())) {
                best = other;
            }
        }
        current = best;
        return true;
    }

    @Override
    public byte[] keyBuffer() {
        return current.keyBuffer();
    }

    @Override
    public int keyOffset() {
        return current.keyOffset();
    }

    @Override
    public int keyLength() {
        return current.keyLength();
    }

    @Override
    public byte[] valueBuffer() {
        return current.valueBuffer();
    }

    @Override
    public int valueOffset() {
        return current.valueOffset();
    }

    @Override
    public int valueLength() {
        return current.valueLength();
    }

    @Override
    public void close() {
        sources.forEach(SortedCursor::close);
        heap.clear();
        taken.clear();
    }
}
