package dev.dht.node.sorting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExternalSorterTest {
    /** The larger value (unsigned) wins: a stand-in for "the newest record". */
    static final Resolver LARGER = (a, ao, al, b, bo, bl) -> Arrays.compareUnsigned(a, ao, ao + al, b, bo, bo + bl) > 0;

    @TempDir
    Path dir;

    /** The model: every key once, with the larger of its values. */
    private static TreeMap<ByteBuffer, byte[]> model(List<byte[][]> entries) {
        TreeMap<ByteBuffer, byte[]> m = new TreeMap<>((x, y) -> Arrays.compareUnsigned(x.array(), y.array()));
        for (byte[][] e : entries) {
            m.merge(ByteBuffer.wrap(e[0]), e[1], (old, v) -> Arrays.compareUnsigned(v, old) > 0 ? v : old);
        }
        return m;
    }

    private static List<byte[][]> sorted(SortedCursor c) throws IOException {
        List<byte[][]> out = new ArrayList<>();
        while (c.next()) {
            out.add(new byte[][] {
                Arrays.copyOfRange(c.keyBuffer(), c.keyOffset(), c.keyOffset() + c.keyLength()),
                Arrays.copyOfRange(c.valueBuffer(), c.valueOffset(), c.valueOffset() + c.valueLength())
            });
        }
        return out;
    }

    private static void assertMatches(List<byte[][]> out, TreeMap<ByteBuffer, byte[]> model) {
        assertThat(out).hasSize(model.size());
        int i = 0;
        for (Map.Entry<ByteBuffer, byte[]> e : model.entrySet()) {
            assertThat(out.get(i)[0]).as("key %d", i).isEqualTo(e.getKey().array());
            assertThat(out.get(i)[1]).as("value of key %d", i).isEqualTo(e.getValue());
            i++;
        }
    }

    private static List<byte[][]> randomEntries(Random random, int n, int keySpace) {
        List<byte[][]> entries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] key = new byte[1 + random.nextInt(12)];
            // a small key space makes many keys repeat, across runs and within one
            key[0] = (byte) random.nextInt(keySpace);
            for (int j = 1; j < key.length; j++) {
                key[j] = (byte) random.nextInt(3);
            }
            byte[] value = new byte[random.nextInt(40)];
            random.nextBytes(value);
            entries.add(new byte[][] {key, value});
        }
        return entries;
    }

    @Test
    void entriesInAnyOrderComeOutSortedOncePerKeyWithTheResolversValue() throws IOException {
        Random random = new Random(7);
        List<byte[][]> entries = randomEntries(random, 20_000, 256);
        try (ExternalSorter sorter = new ExternalSorter(dir.resolve("sort"), 16 << 10, LARGER)) {
            for (byte[][] e : entries) {
                sorter.add(e[0], e[1]);
            }
            assertThat(sorter.runs()).as("a small memory spills many runs").isGreaterThan(20);
            assertThat(sorter.added()).isEqualTo(entries.size());
            try (SortedCursor c = sorter.sorted()) {
                assertMatches(sorted(c), model(entries));
            }
        }
        try (Stream<Path> left = Files.list(dir.resolve("sort"))) {
            assertThat(left).as("close deletes the runs").isEmpty();
        }
    }

    @Test
    void whatFitsInMemoryWritesNoRun() throws IOException {
        List<byte[][]> entries = randomEntries(new Random(3), 2_000, 16);
        try (ExternalSorter sorter = new ExternalSorter(dir.resolve("sort"), 1 << 20, LARGER)) {
            for (byte[][] e : entries) {
                sorter.add(e[0], e[1]);
            }
            try (SortedCursor c = sorter.sorted()) {
                assertMatches(sorted(c), model(entries));
            }
            assertThat(sorter.runs()).isZero();
            assertThat(dir.resolve("sort")).doesNotExist();
        }
    }

    @Test
    void sortedBatchesInterleavedAreMerged() throws IOException {
        // what a restore's inbox holds: sorted batches from several senders, overlapping, arriving interleaved
        List<byte[][]> entries = new ArrayList<>();
        for (int batch = 0; batch < 60; batch++) {
            int sender = batch % 3;
            for (int k = batch / 3 * 50; k < batch / 3 * 50 + 50; k++) {
                entries.add(new byte[][] {
                    String.format("key%06d", k).getBytes(StandardCharsets.UTF_8),
                    ("v" + sender).getBytes(StandardCharsets.UTF_8)
                });
            }
        }
        try (ExternalSorter sorter = new ExternalSorter(dir.resolve("sort"), 8 << 10, LARGER)) {
            for (byte[][] e : entries) {
                sorter.add(e[0], e[1]);
            }
            try (SortedCursor c = sorter.sorted()) {
                List<byte[][]> out = sorted(c);
                assertMatches(out, model(entries));
                assertThat(out)
                        .hasSize(1000)
                        .allSatisfy(e -> assertThat(new String(e[1])).isEqualTo("v2"));
            }
        }
    }

    @Test
    void anEntryLargerThanTheMemoryIsRefused() {
        try (ExternalSorter sorter = new ExternalSorter(dir.resolve("sort"), 1024, LARGER)) {
            assertThatThrownBy(() -> sorter.add(new byte[10], new byte[2000]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("does not fit");
        }
    }

    @Test
    void nothingAddedIsAnEmptySort() throws IOException {
        try (ExternalSorter sorter = new ExternalSorter(dir.resolve("sort"), 1024, LARGER);
                SortedCursor c = sorter.sorted()) {
            assertThat(c.next()).isFalse();
        }
    }
}
