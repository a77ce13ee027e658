package dev.dht.node.restore;

import static dev.dht.node.movement.RecordBatch.lengthAt;

import dev.dht.node.restore.ReceivedRecords.Frame;
import dev.dht.node.sorting.ExternalSorter;
import dev.dht.node.sorting.Resolver;
import dev.dht.node.sorting.SortedCursor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Reads a restore's journal back in key order, one record per key, without sorting the records. Each member sends its
 * part in key order, so the batches one owner gets from one part span ascending key ranges that do not overlap, in
 * whatever order they arrived; the frames, ordered by their first key, fall into a few chains of non-overlapping
 * ranges (about one per part; a part sent again from a resume point after a restart adds one). A k-way merge of the
 * chains reads each record once and keeps the newest copy of each key: a few comparisons per copy, against a sort
 * of every copy. Frames that overlap in more than {@link #MAX_CHAINS} chains go through an {@link ExternalSorter}
 * instead, so the memory stays bounded whatever arrived.
 */
final class FrameMerge {
    /** Chains merged at once: each holds one frame in memory while it is read. */
    static final int MAX_CHAINS = 32;

    private FrameMerge() {}

    /**
     * The frames as chains: by first key, each appended to the first chain whose last key is below its first key
     * (greedy by start: as few chains as the deepest overlap needs).
     */
    static List<List<Frame>> chains(List<Frame> frames) {
        List<Frame> byFirst = new ArrayList<>(frames);
        byFirst.sort(Comparator.comparing(Frame::first, Arrays::compareUnsigned));
        List<List<Frame>> chains = new ArrayList<>();
        for (Frame f : byFirst) {
            List<Frame> target = null;
            for (List<Frame> c : chains) {
                if (Arrays.compareUnsigned(c.get(c.size() - 1).last(), f.first()) < 0) {
                    target = c;
                    break;
                }
            }
            if (target == null) {
                target = new ArrayList<>();
                chains.add(target);
            }
            target.add(f);
        }
        return chains;
    }

    static SortedCursor sorted(
            ReceivedRecords journal, List<Frame> frames, Resolver resolver, Path sortDir, int sortBytes)
            throws IOException {
        return sorted(journal, frames, resolver, sortDir, sortBytes, MAX_CHAINS);
    }

    static SortedCursor sorted(
            ReceivedRecords journal, List<Frame> frames, Resolver resolver, Path sortDir, int sortBytes, int maxChains)
            throws IOException {
        List<List<Frame>> chains = chains(frames);
        if (chains.size() <= maxChains) {
            List<SortedCursor> sources = new ArrayList<>();
            for (List<Frame> c : chains) {
                sources.add(new ChainCursor(journal, c));
            }
            return SortedCursor.merge(sources, resolver);
        }
        ExternalSorter sort = new ExternalSorter(sortDir, sortBytes, resolver);
        try {
            byte[] buffer = new byte[0];
            for (Frame f : frames) {
                buffer = journal.read(f, buffer);
                RestoreBatches.forEach(buffer, f.length(), sort::add);
            }
            return SortedCursor.closing(sort.sorted(), sort);
        } catch (IOException | RuntimeException e) {
            sort.close();
            throw e;
        }
    }

    /** The records of a chain's frames, in order (each frame's keys ascend, and each frame's follow the last's). */
    private static final class ChainCursor implements SortedCursor {
        private final ReceivedRecords journal;
        private final List<Frame> frames;
        private int frame = -1;
        private byte[] buffer = new byte[0];
        private int length;
        private int next;
        private int key;
        private int keyLength;
        private int value;
        private int valueLength;

        ChainCursor(ReceivedRecords journal, List<Frame> frames) {
            this.journal = journal;
            this.frames = frames;
        }

        @Override
        public boolean next() throws IOException {
            while (next >= length) {
                if (++frame >= frames.size()) {
                    return false;
                }
                Frame f = frames.get(frame);
                buffer = journal.read(f, buffer);
                length = f.length();
                next = 0;
            }
            keyLength = lengthAt(buffer, next);
            key = next + 4;
            valueLength = lengthAt(buffer, key + keyLength);
            value = key + keyLength + 4;
            next = value + valueLength;
            return true;
        }

        @Override
        public byte[] keyBuffer() {
            return buffer;
        }

        @Override
        public int keyOffset() {
            return key;
        }

        @Override
        public int keyLength() {
            return keyLength;
        }

        @Override
        public byte[] valueBuffer() {
            return buffer;
        }

        @Override
        public int valueOffset() {
            return value;
        }

        @Override
        public int valueLength() {
            return valueLength;
        }

        @Override
        public void close() {
            frame = frames.size();
            length = 0;
        }
    }
}
