package dev.dht.node.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.ring.XxHash64;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/**
 * Repair's digest index: built from the records when asked for a moment newer than the one at hand, then a snapshot
 * no write touches; it holds the newest version of every key after every kind of write, scans in ring-hash order
 * over any interval (the wrap to the top included), and starts empty at every open, whatever was left in its family.
 */
class DigestIndexTest {
    @TempDir
    Path dir;

    /** The caller's clock: a build stamps the index with its reading. */
    private final AtomicLong clock = new AtomicLong(100);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Every digest of an index as new as asOf, by key, read through one span over the whole space. */
    private Map<String, Digest> index(Store store, long asOf) {
        clock.set(Math.max(clock.get(), asOf));
        Map<String, Digest> out = new TreeMap<>();
        try (DigestScan scan = store.digestScan(asOf, clock::get);
                DigestCursor c = scan.digests(0, -1L)) {
            long last = 0;
            while (c.next()) {
                Digest d = c.digest();
                assertThat(Long.compareUnsigned(d.hash(), last) >= 0)
                        .as("hash order")
                        .isTrue();
                assertThat(d.hash()).isEqualTo(XxHash64.hash(d.key()));
                last = d.hash();
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
    void anIndexHoldsTheStoredVersionOfEveryKeyAfterEveryWritePath() {
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(index(store, 1)).as("an empty store").isEmpty(); // stamped 100, the clock's reading
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
            store.flush(); // some of it in tables, some in the memtable
            for (int i = 0; i < 300; i += 7) {
                store.applyIfNewer(b(keys.get(i)), Record.value(900, b("late" + i)));
            }
            assertThat(store.removeIfSame(b("k3"), store.get(b("k3")))).isTrue();

            Map<String, Digest> expected = expected(store, keys);
            assertThat(expected).doesNotContainKey("k3").hasSize(299);
            assertThat(index(store, 101)).isEqualTo(expected);
            assertThat(store.digestIndexBuilds()).isEqualTo(2);
        }
    }

    /**
     * A build is a snapshot: a scan for a moment the index already covers reuses it (no build, none of the writes
     * since), a scan for a later moment builds it again. So no write ever touches it (the PUT's cost, issue 52).
     */
    @Test
    void anIndexIsReusedForMomentsItCoversAndRebuiltForLaterOnes() {
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            store.applyIfNewer(b("before"), Record.value(1, b("v")));
            store.applyIfNewer(b("removed later"), Record.value(1, b("v")));
            clock.set(1000);
            assertThat(index(store, 500)).containsOnlyKeys("before", "removed later");
            assertThat(store.digestIndexBuilds()).isEqualTo(1);

            store.applyIfNewer(b("after"), Record.value(2, b("w")));
            store.applyIfNewer(b("before"), Record.value(3, b("newer")));
            assertThat(store.removeIfSame(b("removed later"), store.get(b("removed later"))))
                    .isTrue();
            Map<String, Digest> reused = index(store, 1000);
            assertThat(store.digestIndexBuilds())
                    .as("stamped 1000: covers 1000")
                    .isEqualTo(1);
            assertThat(reused).containsOnlyKeys("before", "removed later");
            assertThat(reused.get("before").timestamp()).isEqualTo(1);

            Map<String, Digest> rebuilt = index(store, 1001);
            assertThat(store.digestIndexBuilds()).isEqualTo(2);
            assertThat(rebuilt).isEqualTo(expected(store, List.of("before", "after", "removed later")));
            assertThat(rebuilt.get("before").timestamp()).isEqualTo(3);
        }
    }

    /**
     * A build that fails leaves no index to reuse: the next scan builds again, whatever moment it asks for. (The
     * failure here: a key larger than the sort's memory, which no client request can carry.)
     */
    @Test
    void aFailedBuildLeavesNothingToReuse() {
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            store.applyIfNewer(b("k"), Record.value(1, b("v")));
            clock.set(1000);
            assertThat(index(store, 500)).containsOnlyKeys("k");
            byte[] huge = new byte[DigestIndex.SORT_BYTES + 1];
            store.applyIfNewer(huge, Record.value(2, b("v")));
            assertThatThrownBy(() -> index(store, 2000)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> index(store, 500))
                    .as("the index stamped 1000 was dropped by the build that failed: built again")
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(store.removeIfSame(huge, store.get(huge))).isTrue();
            assertThat(index(store, 500)).containsOnlyKeys("k");
            assertThat(store.digestIndexBuilds()).isEqualTo(2);
        }
    }

    /**
     * A repair batch reads thousands of spans through one {@link DigestScan}: every key exactly once over spans
     * that tile the space (the last one ending at its top), each span holding exactly the keys whose ring hash it
     * covers, and a scan's view unchanged by writes made while it is open.
     */
    @Test
    void aScanOfManySpansReadsEveryKeyOnceInTheSpanOfItsHash() {
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                String k = "key-" + ThreadLocalRandom.current().nextLong();
                keys.add(k);
                store.applyIfNewer(b(k), i % 7 == 0 ? Record.tombstone(2) : Record.value(2, b("w" + i)));
            }
            int spans = 3072;
            long step = Long.divideUnsigned(-1L, spans);
            Map<String, Digest> union = new TreeMap<>();
            long started = System.nanoTime();
            try (DigestScan scan = store.digestScan(1, clock::get)) {
                store.applyIfNewer(b("after the scan began"), Record.value(3, b("x")));
                for (int s = 0; s < spans; s++) {
                    long from = s * step;
                    long to = s == spans - 1 ? -1L : (s + 1) * step - 1;
                    try (DigestCursor c = scan.digests(from, to)) {
                        while (c.next()) {
                            Digest d = c.digest();
                            assertThat(Long.compareUnsigned(d.hash(), from) >= 0
                                            && Long.compareUnsigned(d.hash(), to) <= 0)
                                    .as("span %d", s)
                                    .isTrue();
                            assertThat(union.put(new String(d.key(), StandardCharsets.UTF_8), d))
                                    .as("once")
                                    .isNull();
                        }
                    }
                }
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            assertThat(union).as("every key once, as the index was built").isEqualTo(expected(store, keys));
            assertThat(seconds)
                    .as("a build and %d spans over %d entries", spans, keys.size())
                    .isLessThan(10.0);
        }
    }

    /**
     * What an older version (a complete family with its marker), a crash during a build, or a backup taken
     * meanwhile left in the family describes records of another time: an open empties it, so the first scan builds
     * from the records. It also leaves an older version, started on this directory again, an unmarked family, which
     * that version indexes anew.
     */
    @Test
    void anOpenEmptiesWhatWasLeftInTheFamily() throws Exception {
        writeRaw("old", (db, families) -> {
            db.put(families.get(0), b("kept"), Record.value(5, b("new")).encoded());
            db.put(families.get(1), Digest.entryKey(b("kept")), Digest.entryValue(Record.value(4, b("old"))));
            db.put(families.get(1), Digest.entryKey(b("removed")), Digest.entryValue(Record.value(3, b("gone"))));
            db.put(families.get(1), new byte[0], new byte[] {1}); // the older version's "complete" marker
        });
        try (RocksStore store = RocksStore.open(dir.resolve("old"), StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(store.digestIndexBuilds()).isZero();
        }
        assertThat(rawEntries("old")).as("emptied at the open").isZero();
        try (RocksStore store = RocksStore.open(dir.resolve("old"), StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(index(store, 1))
                    .isEqualTo(expected(store, List.of("kept", "removed")))
                    .containsOnlyKeys("kept");
            assertThat(store.digestIndexBuilds()).isEqualTo(1);
        }
        assertThat(rawEntries("old")).as("a built index is left as it was").isEqualTo(1);
        try (RocksStore store = RocksStore.open(dir.resolve("old"), StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(store.digestIndexBuilds()).isZero();
        }
        assertThat(rawEntries("old")).as("and emptied at the next open").isZero();
    }

    /** Writes into dir/name directly, as an older version left it: the records, then the digests family. */
    private void writeRaw(String name, RawWrites writes) throws Exception {
        try (RocksStore warmUp = RocksStore.open(dir.resolve("unused"), StorageOptions.node(4 << 20, 8 << 20))) {
            // loads the native library
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
                RocksDB db = RocksDB.open(options, dir.resolve(name).toString(), descriptors(), handles)) {
            writes.write(db, handles);
            handles.forEach(ColumnFamilyHandle::close);
        }
    }

    /** Entries in the digests family of dir/name, read with RocksDB directly. */
    private long rawEntries(String name) throws Exception {
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        long n = 0;
        try (DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
                RocksDB db = RocksDB.open(options, dir.resolve(name).toString(), descriptors(), handles)) {
            try (RocksIterator it = db.newIterator(handles.get(1))) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    n++;
                }
            }
            handles.forEach(ColumnFamilyHandle::close);
        }
        return n;
    }

    private static List<ColumnFamilyDescriptor> descriptors() {
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY));
        descriptors.add(new ColumnFamilyDescriptor(b(DigestIndex.NAME)));
        for (String f : List.of(RocksStore.HINTS, RocksStore.REPAIR)) {
            descriptors.add(new ColumnFamilyDescriptor(b(f)));
        }
        return descriptors;
    }

    interface RawWrites {
        void write(RocksDB db, List<ColumnFamilyHandle> families) throws Exception;
    }
}
