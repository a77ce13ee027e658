package dev.dht.node.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.movement.RecordBatch;
import dev.dht.node.restore.ReceivedRecords.Frame;
import dev.dht.node.sorting.SortedCursor;
import dev.dht.node.storage.Record;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal read back in key order, the newest copy of each key: by merging chains of frames when the parts' batches
 * arrived in any order, and through the sort when they overlap too much.
 */
class FrameMergeTest {
    @TempDir
    Path dir;

    private static String key(int i) {
        return String.format("k%06d", i);
    }

    /**
     * What one owner receives from three parts: each part's keys in ascending batches, each key's copy stamped by
     * its part (part 2 newest for even keys, part 0 for odd ones), the batches of all parts shuffled together.
     */
    private static List<byte[]> batches(Random random, int keys, int perBatch, boolean resumeAgain) {
        List<byte[]> out = new ArrayList<>();
        for (int part = 0; part < 3; part++) {
            int from = 0;
            while (from < keys) {
                RecordBatch b = new RecordBatch();
                int to = Math.min(keys, from + 1 + random.nextInt(perBatch));
                for (int i = from; i < to; i++) {
                    long ts = i % 2 == 0 ? 10 + part : 20 - part;
                    b.add(
                            key(i).getBytes(StandardCharsets.UTF_8),
                            i % 5 == 0 ? Record.tombstone(ts) : Record.value(ts, ("p" + part + "-" + i).getBytes()));
                }
                out.add(b.toBytes());
                from = to;
            }
            if (resumeAgain && part == 1) { // a restart resumes part 1 from the middle: its later batches come again
                RecordBatch b = new RecordBatch();
                for (int i = keys / 2; i < keys / 2 + perBatch; i++) {
                    long ts = i % 2 == 0 ? 11 : 19;
                    b.add(
                            key(i).getBytes(StandardCharsets.UTF_8),
                            i % 5 == 0 ? Record.tombstone(ts) : Record.value(ts, ("p1-" + i).getBytes()));
                }
                out.add(b.toBytes());
            }
        }
        Collections.shuffle(out, random);
        return out;
    }

    private static Map<String, Record> expected(int keys) {
        Map<String, Record> m = new TreeMap<>();
        for (int i = 0; i < keys; i++) {
            int newest = i % 2 == 0 ? 2 : 0;
            long ts = i % 2 == 0 ? 12 : 20;
            m.put(key(i), i % 5 == 0 ? Record.tombstone(ts) : Record.value(ts, ("p" + newest + "-" + i).getBytes()));
        }
        return m;
    }

    private Map<String, Record> read(ReceivedRecords journal, int maxChains) throws IOException {
        Map<String, Record> out = new TreeMap<>();
        List<Frame> frames = journal.frames();
        String previous = null;
        try (SortedCursor c =
                FrameMerge.sorted(journal, frames, Inbox.NEWEST, dir.resolve("sort"), 1 << 16, maxChains)) {
            while (c.next()) {
                String k = new String(c.keyBuffer(), c.keyOffset(), c.keyLength(), StandardCharsets.UTF_8);
                assertThat(previous == null || previous.compareTo(k) < 0)
                        .as("ascending, once: %s", k)
                        .isTrue();
                previous = k;
                out.put(
                        k,
                        Record.decode(Arrays.copyOfRange(
                                c.valueBuffer(), c.valueOffset(), c.valueOffset() + c.valueLength())));
            }
        }
        return out;
    }

    private ReceivedRecords journal(List<byte[]> batches) throws IOException {
        ReceivedRecords journal = ReceivedRecords.open(dir, "r1");
        for (byte[] b : batches) {
            journal.append(b, b.length, RestoreBatches.count(b, b.length));
        }
        return journal;
    }

    @Test
    void batchesOfThreePartsInAnyOrderMergeAsThreeChains() throws IOException {
        try (ReceivedRecords journal = journal(batches(new Random(1), 5000, 300, false))) {
            assertThat(FrameMerge.chains(journal.frames())).hasSize(3);
            assertThat(read(journal, FrameMerge.MAX_CHAINS)).isEqualTo(expected(5000));
        }
    }

    @Test
    void aPartSentAgainFromItsResumePointAddsAChainAndChangesNothing() throws IOException {
        try (ReceivedRecords journal = journal(batches(new Random(2), 5000, 300, true))) {
            assertThat(FrameMerge.chains(journal.frames())).hasSize(4);
            assertThat(read(journal, FrameMerge.MAX_CHAINS)).isEqualTo(expected(5000));
        }
    }

    @Test
    void framesOverlappingBeyondTheLimitGoThroughTheSortWithTheSameResult() throws IOException {
        try (ReceivedRecords journal = journal(batches(new Random(3), 5000, 300, true))) {
            assertThat(read(journal, 2)).isEqualTo(expected(5000));
        }
    }

    @Test
    void theFramesAreKnownAgainAfterARestart() throws IOException {
        List<byte[]> batches = batches(new Random(4), 2000, 100, false);
        try (ReceivedRecords journal = journal(batches)) {
            assertThat(journal.frames()).hasSize(batches.size());
        }
        try (ReceivedRecords again = ReceivedRecords.open(dir, "r1")) {
            assertThat(again.frames()).hasSize(batches.size());
            assertThat(read(again, FrameMerge.MAX_CHAINS)).isEqualTo(expected(2000));
        }
    }
}
