package dev.dht.node.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.ring.XxHash64;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/**
 * The digest family (what repair compares) agrees with the records after every kind of write, is scanned in ring
 * hash order over any interval (the wrap-around arc included), and is built for a store written before it existed.
 */
class DigestFamilyTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Every digest of the store, by key, read through the hash-ordered scan. */
    private static Map<String, Digest> allDigests(Store store) {
        Map<String, Digest> out = new TreeMap<>();
        long lastHash = Long.MIN_VALUE;
        boolean first = true;
        try (DigestCursor c = store.digests(0, -1L)) {
            while (c.next()) {
                Digest d = c.digest();
                assertThat(first || Long.compareUnsigned(d.hash(), lastHash) >= 0)
                        .as("hash order")
                        .isTrue();
                assertThat(d.hash()).isEqualTo(XxHash64.hash(d.key()));
                first = false;
                lastHash = d.hash();
                out.put(new String(d.key(), StandardCharsets.UTF_8), d);
            }
        }
        return out;
    }

    private static Map<String, Digest> expected(Store store, List<String> keys) {
        Map<String, Digest> out = new TreeMap<>();
        for (String k : keys) {
            Record r = store.get(b(k));
            if (r != null) {
                out.put(k, Digest.of(b(k), r));
            }
        }
        return out;
    }

    @Test
    void everyWritePathKeepsTheDigestOfTheStoredRecord() {
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(store.createdAtOpen()).isTrue();
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                keys.add("k" + i);
            }
            for (int i = 0; i < 100; i++) {
                store.applyIfNewer(b(keys.get(i)), Record.value(10 + i, b("v" + i)));
            }
            List<byte[]> batchKeys = new ArrayList<>();
            List<Record> batchRecords = new ArrayList<>();
            for (int i = 50; i < 200; i++) {
                batchKeys.add(b(keys.get(i)));
                batchRecords.add(
                        i % 3 == 0 ? Record.tombstone(500 + i) : Record.value(i % 2 == 0 ? 1 : 500, b("b" + i)));
            }
            store.applyAllIfNewer(batchKeys, batchRecords);
            for (int i = 150; i < 300; i++) {
                store.tryApplyIfNewer(b(keys.get(i)), Record.value(700, b("t" + i)));
            }
            Record purged = store.get(b("k3"));
            assertThat(store.removeIfSame(b("k3"), purged)).isTrue();
            assertThat(store.removeIfSame(b("k4"), Record.value(1, b("other"))))
                    .as("not the stored one")
                    .isFalse();

            Map<String, Digest> expected = expected(store, keys);
            assertThat(expected).doesNotContainKey("k3").hasSize(299);
            assertThat(allDigests(store)).isEqualTo(expected);
            assertThat(store.digest(b("k60"))).isEqualTo(expected.get("k60"));
            assertThat(store.digest(b("k3"))).isNull();
        }
        try (RocksStore reopened = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(reopened.createdAtOpen()).isFalse();
        }
    }

    @Test
    void intervalsArePagedInHashOrderAndCoverTheWholeSpaceOnce() {
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            Map<String, Long> hashes = new HashMap<>();
            for (int i = 0; i < 2000; i++) {
                String k = "key-" + ThreadLocalRandom.current().nextLong();
                store.applyIfNewer(b(k), Record.value(1, b("v")));
                hashes.put(k, XxHash64.hash(b(k)));
            }
            // four intervals that tile the unsigned space, the last one ending at its top
            long[] cuts = {0, 0x4000_0000_0000_0000L, 0x8000_0000_0000_0000L, 0xC000_0000_0000_0000L};
            int total = 0;
            for (int i = 0; i < cuts.length; i++) {
                long from = cuts[i];
                long to = i + 1 < cuts.length ? cuts[i + 1] - 1 : -1L;
                int inInterval = 0;
                Digest last = null;
                // pages of at most 100 entries, each starting after the last one seen
                while (true) {
                    int page = 0;
                    try (DigestCursor c =
                            last == null ? store.digests(from, to) : store.digestsAfter(last.hash(), last.key(), to)) {
                        while (page < 100 && c.next()) {
                            last = c.digest();
                            assertThat(Long.compareUnsigned(last.hash(), from) >= 0
                                            && Long.compareUnsigned(last.hash(), to) <= 0)
                                    .isTrue();
                            page++;
                        }
                    }
                    inInterval += page;
                    if (page < 100) {
                        break;
                    }
                }
                final long f = from;
                final long t = to;
                assertThat(inInterval).isEqualTo((int) hashes.values().stream()
                        .filter(h -> Long.compareUnsigned(h, f) >= 0 && Long.compareUnsigned(h, t) <= 0)
                        .count());
                total += inInterval;
            }
            assertThat(total).isEqualTo(2000);
        }
    }

    /**
     * The family's memtable is a vector: a scan sorts a copy of it, or, once it holds more than
     * {@link DigestFamily#SCAN_FLUSH_ENTRIES}, flushes it first. Either way a scan sees every write since the last
     * flush, one digest per key (the newest version), in hash order.
     */
    @Test
    void aScanSeesTheNewestDigestOfEveryKeyWithTheMemtableSortedOrFlushed() {
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(64 << 20, 8 << 20))) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                keys.add("small" + i);
                store.applyIfNewer(b("small" + i), Record.value(1, b("v" + i)));
            }
            for (int i = 0; i < 500; i += 2) {
                store.applyIfNewer(b("small" + i), Record.value(2, b("newer" + i))); // two entries for one key
            }
            assertThat(allDigests(store)).hasSize(500).isEqualTo(expected(store, keys));
            // 750 digests and the family's marker: a scan this small sorts the memtable, nothing is flushed
            assertThat(store.digestEntriesInMemory()).isEqualTo(751);

            int many = (int) DigestFamily.SCAN_FLUSH_ENTRIES + 1000;
            List<byte[]> batchKeys = new ArrayList<>();
            List<Record> batch = new ArrayList<>();
            for (int i = 0; i < many; i++) {
                keys.add("many" + i);
                batchKeys.add(b("many" + i));
                batch.add(i % 5 == 0 ? Record.tombstone(3) : Record.value(3, b("m" + i)));
            }
            store.applyAllIfNewer(batchKeys, batch);
            store.applyIfNewer(b("small1"), Record.value(4, b("newest")));
            assertThat(store.removeIfSame(b("small3"), store.get(b("small3")))).isTrue();
            assertThat(store.digestEntriesInMemory()).isGreaterThan(DigestFamily.SCAN_FLUSH_ENTRIES);
            Map<String, Digest> expected = expected(store, keys);
            assertThat(expected).hasSize(500 + many - 1).containsKey("small1").doesNotContainKey("small3");
            assertThat(allDigests(store)).isEqualTo(expected);
            assertThat(store.digestEntriesInMemory())
                    .as("flushed before the scan")
                    .isZero();
            assertThat(allDigests(store)).as("read from the flushed tables").isEqualTo(expected);
        }
        try (RocksStore reopened = RocksStore.open(dir, StorageOptions.node(64 << 20, 8 << 20))) {
            assertThat(allDigests(reopened))
                    .as("after a restart (the WAL replayed into a vector)")
                    .hasSize(500 + (int) DigestFamily.SCAN_FLUSH_ENTRIES + 1000 - 1);
        }
    }

    /**
     * Why the family has its own memtable: every write adds a digest keyed by a ring hash, i.e. at a random place,
     * and a skiplist insert there was ~30% of a PUT's CPU (docs/benchmarks/ab/); a vector takes it in O(1). The
     * records keep the skiplist their point lookups need.
     */
    @Test
    void theDigestFamilyAppendsToAVectorAndTheRecordsKeepASkiplist() throws Exception {
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            store.applyIfNewer(b("k"), Record.value(1, b("v")));
        }
        Path options;
        try (var files = java.nio.file.Files.list(dir)) {
            options = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
                    .max(Path::compareTo)
                    .orElseThrow();
        }
        Map<String, String> factories = new HashMap<>();
        String family = null;
        for (String line : java.nio.file.Files.readAllLines(options)) {
            if (line.startsWith("[CFOptions \"")) {
                family = line.substring("[CFOptions \"".length(), line.length() - 2);
            } else if (family != null && line.trim().startsWith("memtable_factory=")) {
                factories.put(family, line.trim().substring("memtable_factory=".length()));
            }
        }
        assertThat(factories.get(DigestFamily.NAME)).contains("VectorRepFactory");
        assertThat(factories.get("default")).isEqualTo("SkipListFactory");
    }

    /**
     * RocksDB inserts into a vector memtable from one writer thread only and refuses to open it with concurrent
     * memtable writes: a store with them (StoreBench's RocksDB-defaults preset, never the node) keeps a skiplist for
     * the digests.
     */
    @Test
    void withConcurrentMemtableWritesTheDigestsKeepASkiplist() {
        StorageOptions concurrent = StorageOptions.rocksDefaults(4 << 20, 8 << 20);
        assertThat(concurrent.concurrentMemtableWrite()).isTrue();
        try (RocksStore store = RocksStore.open(dir, concurrent)) {
            store.applyIfNewer(b("k"), Record.value(1, b("v")));
            assertThat(allDigests(store)).isEqualTo(expected(store, List.of("k")));
        }
    }

    /**
     * A repair batch reads thousands of spans through one {@link DigestScan}: the same entries as a cursor per span,
     * the wrap to the top of the space included, from the memtable and the tables alike; and one sort of the vector
     * memtable for the batch, not one per span (an iterator per span: 16 s for 3072 spans over 16k entries here).
     */
    @Test
    void aScanOfManySpansReadsWhatACursorPerSpanReadsAndSortsTheMemtableOnce() {
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(64 << 20, 8 << 20))) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                keys.add("flushed" + i);
                store.applyIfNewer(b("flushed" + i), Record.value(1, b("v")));
            }
            store.flush();
            int inMemory = (int) DigestFamily.SCAN_FLUSH_ENTRIES - 3000;
            for (int i = 0; i < inMemory; i++) {
                keys.add("memory" + i);
                store.applyIfNewer(b("memory" + i), i % 7 == 0 ? Record.tombstone(2) : Record.value(2, b("w")));
            }
            int spans = 3072;
            long step = Long.divideUnsigned(-1L, spans);
            List<long[]> tiles = new ArrayList<>();
            for (int s = 0; s < spans; s++) {
                tiles.add(new long[] {s * step, s == spans - 1 ? -1L : (s + 1) * step - 1});
            }
            long started = System.nanoTime();
            List<List<Digest>> batched = new ArrayList<>();
            try (DigestScan scan = store.digestScan()) {
                store.applyIfNewer(b("after the scan began"), Record.value(3, b("x")));
                for (long[] t : tiles) {
                    batched.add(read(scan.digests(t[0], t[1])));
                }
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            assertThat(store.digestEntriesInMemory())
                    .as("not flushed: the scan sorted the memtable")
                    .isGreaterThan(inMemory);
            Map<String, Digest> union = new TreeMap<>();
            for (List<Digest> l : batched) {
                l.forEach(d -> union.put(new String(d.key(), StandardCharsets.UTF_8), d));
            }
            assertThat(union).as("every key once, as the scan was made").isEqualTo(expected(store, keys));
            for (int s = 0; s < spans; s += 97) {
                assertThat(batched.get(s))
                        .as("span " + s)
                        .isEqualTo(read(store.digests(tiles.get(s)[0], tiles.get(s)[1])));
            }
            assertThat(seconds)
                    .as("%d spans over %d entries in one scan", spans, inMemory)
                    .isLessThan(4.0);
        }
    }

    private static List<Digest> read(DigestCursor c) {
        List<Digest> out = new ArrayList<>();
        try (c) {
            while (c.next()) {
                out.add(c.digest());
            }
        }
        return out;
    }

    @Test
    void aStoreWrittenWithoutTheFamilyIsIndexedWhenOpened() throws Exception {
        // A database as the version before wrote it: records and hints, no digest family.
        writeRaw("old", List.of("hints"), (db, families) -> {
            for (int i = 0; i < 2500; i++) {
                db.put(
                        families.get(0),
                        b("old" + i),
                        Record.value(i + 1, b("x" + i)).encoded());
            }
        });
        try (RocksStore store = RocksStore.open(dir.resolve("old"), StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(allDigests(store)).hasSize(2500).isEqualTo(expected(store, oldKeys(2500)));
            assertThat(store.indexedAtOpen()).isEqualTo(2500);
        }
        try (RocksStore reopened = RocksStore.open(dir.resolve("old"), StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(reopened.indexedAtOpen()).as("indexed once").isEqualTo(-1);
        }
    }

    @Test
    void aNewStoreIsNeverIndexed() {
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(store.indexedAtOpen()).isZero();
            store.applyIfNewer(b("k"), Record.value(1, b("v")));
        }
        try (RocksStore reopened = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(reopened.indexedAtOpen()).isEqualTo(-1);
            assertThat(allDigests(reopened)).hasSize(1).isEqualTo(expected(reopened, List.of("k")));
        }
    }

    @Test
    void anUnmarkedFamilyIsRebuiltWithoutWhatItHeld() throws Exception {
        // No marker (a store of the version before it, or an indexing cut short), and entries the records no longer
        // back: a removed key's digest, an outdated version's digest.
        writeRaw("stale", List.of(DigestFamily.NAME), (db, families) -> {
            db.put(families.get(0), b("kept"), Record.value(5, b("new")).encoded());
            db.put(families.get(1), Digest.entryKey(b("kept")), Digest.entryValue(Record.value(4, b("old"))));
            db.put(families.get(1), Digest.entryKey(b("removed")), Digest.entryValue(Record.value(3, b("gone"))));
        });
        try (RocksStore store = RocksStore.open(dir.resolve("stale"), StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(store.indexedAtOpen()).isEqualTo(1);
            assertThat(allDigests(store))
                    .isEqualTo(expected(store, List.of("kept", "removed")))
                    .containsOnlyKeys("kept");
            assertThat(store.digest(b("removed"))).isNull();
        }
    }

    @Test
    void anIndexingCutShortIsDoneAgainAtTheNextOpen() throws Exception {
        // As a crash during the first open's indexing leaves it: records, and a digest family holding some of them.
        writeRaw("cut", List.of("hints", DigestFamily.NAME), (db, families) -> {
            for (int i = 0; i < 2500; i++) {
                Record r = Record.value(i + 1, b("x" + i));
                db.put(families.get(0), b("old" + i), r.encoded());
                if (i < 1024) {
                    db.put(families.get(2), Digest.entryKey(b("old" + i)), Digest.entryValue(r));
                }
            }
        });
        try (RocksStore store = RocksStore.open(dir.resolve("cut"), StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(allDigests(store)).hasSize(2500).isEqualTo(expected(store, oldKeys(2500)));
        }
    }

    /** Writes into dir/name directly, as an older version or a crash left it: the default family, then these. */
    private void writeRaw(String name, List<String> families, RawWrites writes) throws Exception {
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY));
        families.forEach(f -> descriptors.add(new ColumnFamilyDescriptor(b(f))));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (RocksStore warmUp = RocksStore.open(dir.resolve("unused"), StorageOptions.node(4 << 20, 8 << 20));
                DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
                RocksDB db = RocksDB.open(options, dir.resolve(name).toString(), descriptors, handles)) {
            writes.write(db, handles);
            handles.forEach(ColumnFamilyHandle::close);
        }
    }

    interface RawWrites {
        void write(RocksDB db, List<ColumnFamilyHandle> families) throws Exception;
    }

    /** old0 .. old(n-1): the keys the raw databases above hold. */
    private static List<String> oldKeys(int n) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add("old" + i);
        }
        return keys;
    }
}
