package dev.dht.node.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.sorting.ExternalSorter;
import dev.dht.node.sorting.SortedCursor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records loaded whole ({@link RocksStore#ingestSorted}) read back as written, keep last-write-wins against what the
 * store held, and survive a reopen.
 */
class SortedIngestTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The records as a sorted cursor (through the sort a restore uses; the values are encoded records). */
    private SortedCursor sorted(ExternalSorter sorter, Map<String, Record> records) throws IOException {
        for (Map.Entry<String, Record> e : records.entrySet()) {
            sorter.add(b(e.getKey()), e.getValue().encoded());
        }
        return sorter.sorted();
    }

    private static ExternalSorter sorter(Path dir) {
        return new ExternalSorter(
                dir, 1 << 20, (a, ao, al, c, co, cl) -> Record.compareEncoded(a, ao, al, c, co, cl) > 0);
    }

    @Test
    void loadedRecordsReadBackAndTheNewerStoredOnesStay() throws IOException {
        Path data = dir.resolve("data");
        Map<String, Record> incoming = new TreeMap<>();
        for (int i = 0; i < 5000; i++) {
            incoming.put(
                    String.format("k%05d", i),
                    i % 7 == 0 ? Record.tombstone(1000 + i) : Record.value(1000 + i, b("v" + i)));
        }
        try (RocksStore store = RocksStore.open(data, StorageOptions.node(4 << 20, 8 << 20))) {
            // held before the load: one newer than the incoming copy (it stays), one older (replaced), one only here
            store.applyIfNewer(b("k00010"), Record.value(99_999, b("newer")));
            store.applyIfNewer(b("k00011"), Record.value(5, b("older")));
            store.applyIfNewer(b("only-stored"), Record.value(7, b("mine")));
            SortedIngest.Result r;
            try (ExternalSorter s = sorter(dir.resolve("sort"));
                    SortedCursor c = sorted(s, incoming)) {
                r = store.ingestSorted(c, dir.resolve("work"));
            }
            assertThat(r.loaded()).isEqualTo(4999);
            assertThat(r.keptStored()).isEqualTo(1);
            assertThat(r.files()).as("a records file").isEqualTo(1);
            assertThat(dir.resolve("work"))
                    .as("the load's files are moved in or deleted")
                    .doesNotExist();
            assertStored(store, incoming);
        }
        try (RocksStore reopened = RocksStore.open(data, StorageOptions.node(4 << 20, 8 << 20))) {
            assertStored(reopened, incoming);
        }
    }

    private static void assertStored(RocksStore store, Map<String, Record> incoming) {
        for (Map.Entry<String, Record> e : incoming.entrySet()) {
            Record expected = e.getKey().equals("k00010") ? Record.value(99_999, b("newer")) : e.getValue();
            assertThat(store.get(b(e.getKey()))).as(e.getKey()).isEqualTo(expected);
        }
        assertThat(store.get(b("only-stored"))).isEqualTo(Record.value(7, b("mine")));
        List<String> scanned = new ArrayList<>();
        try (RangeCursor c = store.range(new byte[0], null)) {
            while (c.next()) {
                scanned.add(new String(c.key(), StandardCharsets.UTF_8));
            }
        }
        assertThat(scanned).hasSize(incoming.size() + 1).isSorted();
    }

    @Test
    void aLargeLoadIsCutIntoSeveralFiles() throws IOException {
        Map<String, Record> incoming = new TreeMap<>();
        java.util.Random random = new java.util.Random(1);
        for (int i = 0; i < 20_000; i++) {
            byte[] value = new byte[4000]; // random: compression must not shrink it
            random.nextBytes(value);
            incoming.put(String.format("big%06d", i), Record.value(10 + i, value));
        }
        try (RocksStore store = RocksStore.open(dir.resolve("data"), StorageOptions.node(4 << 20, 8 << 20));
                ExternalSorter s = new ExternalSorter(
                        dir.resolve("sort"),
                        8 << 20,
                        (a, ao, al, c, co, cl) -> Record.compareEncoded(a, ao, al, c, co, cl) > 0);
                SortedCursor c = sorted(s, incoming)) {
            SortedIngest.Result r = store.ingestSorted(c, dir.resolve("work"));
            assertThat(r.files()).as("80 MB of records: two records files").isEqualTo(2);
            assertThat(store.get(b("big019999")).timestamp()).isEqualTo(10 + 19_999);
        }
    }

    @Test
    void recordsOutOfOrderAreRefusedAndNothingIsIngested() throws IOException {
        try (RocksStore store = RocksStore.open(dir.resolve("data"), StorageOptions.node(4 << 20, 8 << 20))) {
            SortedCursor backwards = new ListCursor(
                    List.of(b("b"), b("a")), Record.value(1, b("x")).encoded());
            assertThatThrownBy(() -> store.ingestSorted(backwards, dir.resolve("work")))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("not sorted");
            assertThat(store.get(b("b"))).isNull();
        }
        try (Stream<Path> left = Files.walk(dir.resolve("work"))) {
            assertThat(left.filter(p -> p.toString().endsWith(".sst"))).isEmpty();
        } catch (java.nio.file.NoSuchFileException gone) {
            // deleted: fine too
        }
    }

    /** Keys in the order given, each with the same value. */
    private static final class ListCursor implements SortedCursor {
        private final List<byte[]> keys;
        private final byte[] value;
        private int i = -1;

        ListCursor(List<byte[]> keys, byte[] value) {
            this.keys = keys;
            this.value = value;
        }

        @Override
        public boolean next() {
            return ++i < keys.size();
        }

        @Override
        public byte[] keyBuffer() {
            return keys.get(i);
        }

        @Override
        public int keyOffset() {
            return 0;
        }

        @Override
        public int keyLength() {
            return keys.get(i).length;
        }

        @Override
        public byte[] valueBuffer() {
            return value;
        }

        @Override
        public int valueOffset() {
            return 0;
        }

        @Override
        public int valueLength() {
            return value.length;
        }

        @Override
        public void close() {}
    }
}
