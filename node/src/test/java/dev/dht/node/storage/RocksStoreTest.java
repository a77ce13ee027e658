package dev.dht.node.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksStoreTest {
    @TempDir
    Path dir;

    RocksStore store;

    @BeforeEach
    void open() {
        store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void absentKeyIsNull() {
        assertThat(store.get(b("nope"))).isNull();
    }

    @Test
    void appliesNewerRecordsOnly() {
        assertThat(store.applyIfNewer(b("k"), Record.value(10, b("v10")))).isTrue();
        assertThat(store.applyIfNewer(b("k"), Record.value(9, b("v9")))).isFalse();
        assertThat(store.get(b("k")).value()).isEqualTo(b("v10"));
        assertThat(store.applyIfNewer(b("k"), Record.value(10, b("v10"))))
                .as("same record again")
                .isFalse();
        assertThat(store.applyIfNewer(b("k"), Record.tombstone(11))).isTrue();
        assertThat(store.get(b("k")).isTombstone()).isTrue();
        assertThat(store.applyIfNewer(b("k"), Record.value(10, b("late"))))
                .as("older than the tombstone")
                .isFalse();
        assertThat(store.applyIfNewer(b("k"), Record.value(12, b("again"))))
                .as("recreate")
                .isTrue();
        assertThat(store.get(b("k")).value()).isEqualTo(b("again"));
    }

    @Test
    void batchAppliesNewerRecordsOnlyAcrossGroups() {
        // 3 groups of APPLY_GROUP: some keys already newer in the store, some older, a key twice in one group
        store.applyIfNewer(b("k000"), Record.value(100, b("kept")));
        store.applyIfNewer(b("k001"), Record.value(1, b("old")));
        store.applyIfNewer(b("k150"), Record.tombstone(100));
        List<byte[]> keys = new ArrayList<>();
        List<Record> records = new ArrayList<>();
        int n = 3 * RecordFamily.APPLY_GROUP - 7;
        for (int i = 0; i < n; i++) {
            keys.add(b(String.format("k%03d", i)));
            records.add(i % 10 == 9 ? Record.tombstone(50) : Record.value(50, b("v" + i)));
        }
        keys.add(b("k002")); // again, in the last group: newer than the first copy
        records.add(Record.value(60, b("newest")));
        keys.add(b("k003"));
        records.add(Record.value(40, b("older than the batch's own")));
        int stored = store.applyAllIfNewer(keys, records);
        assertThat(stored).isEqualTo(n - 2 + 1); // k000 and k150 refused, k002 stored twice, k003's second refused
        assertThat(store.get(b("k000")).value()).isEqualTo(b("kept"));
        assertThat(store.get(b("k001")).value()).isEqualTo(b("v1"));
        assertThat(store.get(b("k002")).value()).isEqualTo(b("newest"));
        assertThat(store.get(b("k003")).value()).isEqualTo(b("v3"));
        assertThat(store.get(b("k009")).isTombstone()).isTrue();
        assertThat(store.get(b("k009")).timestamp()).isEqualTo(50);
        assertThat(store.get(b("k150")).timestamp()).isEqualTo(100);
        assertThat(store.applyAllIfNewer(keys, records))
                .as("the same batch again: nothing newer")
                .isZero();
    }

    /**
     * What a restore's batches meet: records in the memtable, in an SST whose blocks are cached, in an SST read from
     * disk only, and deleted by RocksDB itself over an older SST value. Each older copy is refused, each newer one
     * stored, a stored tombstone hides an older value, and a key RocksDB deleted takes any copy.
     */
    @Test
    void batchesCompareAgainstTheNewestStoredCopyWhereverItLives() {
        store.applyIfNewer(b("disk"), Record.value(100, b("disk-kept")));
        store.applyIfNewer(b("disk-tomb"), Record.tombstone(100));
        store.applyIfNewer(b("purged"), Record.value(100, b("purged-old")));
        store.flush();
        assertThat(store.removeIfSame(b("purged"), Record.value(100, b("purged-old"))))
                .isTrue();
        store.applyIfNewer(b("cached"), Record.value(100, b("cached-kept")));
        store.applyIfNewer(b("cached-tomb"), Record.tombstone(100));
        moveToDiskOnly(); // a first SST with "disk*" and the old "purged", a second with "cached*" and its delete
        assertThat(store.get(b("cached")))
                .as("loads the second SST's block into the cache")
                .isNotNull();
        assertThat(store.getIfInMemory(b("cached-tomb"))).isEqualTo(Record.tombstone(100));
        assertThat(store.getIfInMemory(b("disk"))).as("on disk only").isSameAs(Store.NOT_IN_MEMORY);
        store.applyIfNewer(b("memory"), Record.value(100, b("memory-kept")));

        List<String> names = List.of("disk", "disk-tomb", "cached", "cached-tomb", "memory", "purged");
        List<byte[]> keys = new ArrayList<>();
        List<Record> older = new ArrayList<>();
        for (String n : names) {
            keys.add(b(n));
            older.add(Record.value(99, b(n + "-older")));
        }
        assertThat(store.applyAllIfNewer(keys, older))
                .as("only the purged key takes an older copy")
                .isEqualTo(1);
        assertThat(store.get(b("disk")).value()).isEqualTo(b("disk-kept"));
        assertThat(store.get(b("cached")).value()).isEqualTo(b("cached-kept"));
        assertThat(store.get(b("memory")).value()).isEqualTo(b("memory-kept"));
        assertThat(store.get(b("disk-tomb"))).isEqualTo(Record.tombstone(100));
        assertThat(store.get(b("cached-tomb"))).isEqualTo(Record.tombstone(100));
        assertThat(store.get(b("purged")).value()).isEqualTo(b("purged-older"));

        moveToDiskOnly();
        List<Record> newer = new ArrayList<>();
        for (String n : names) {
            newer.add(Record.value(101, b(n + "-newer")));
        }
        assertThat(store.applyAllIfNewer(keys, newer)).isEqualTo(names.size());
        for (String n : names) {
            assertThat(store.get(b(n))).isEqualTo(Record.value(101, b(n + "-newer")));
        }
    }

    @Test
    void batchesAndSingleWritesOnTheSameKeysNeverLoseTheNewest() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        java.util.Map<String, Long> newest = new java.util.concurrent.ConcurrentHashMap<>();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                int writer = w;
                done.add(pool.submit(() -> {
                    for (int round = 0; round < 200; round++) {
                        List<byte[]> keys = new ArrayList<>();
                        List<Record> records = new ArrayList<>();
                        for (int k = 0; k < 100; k++) {
                            long ts = ThreadLocalRandom.current().nextLong(1, 1_000_000);
                            String key = "key" + ((k * 7 + round) % 100);
                            keys.add(b(key));
                            records.add(Record.value(ts, b(writer + ":" + ts)));
                            newest.merge(key, ts, Math::max);
                        }
                        if (writer == 0) {
                            for (int i = 0; i < keys.size(); i++) {
                                store.applyIfNewer(keys.get(i), records.get(i));
                            }
                        } else {
                            store.applyAllIfNewer(keys, records);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        // whatever interleaving: each key holds the record with the largest timestamp written to it
        for (int k = 0; k < 100; k++) {
            Record r = store.get(b("key" + k));
            assertThat(r).isNotNull();
            assertThat(r.timestamp()).isEqualTo(newest.get("key" + k));
            String v = new String(r.value(), StandardCharsets.UTF_8);
            assertThat(v).endsWith(":" + r.timestamp());
            assertThat(store.applyAllIfNewer(List.of(b("key" + k)), List.of(Record.value(r.timestamp() - 1, b("x")))))
                    .isZero();
        }
    }

    @Test
    void rangeIsOrderedHalfOpenAndIncludesTombstones() {
        for (String k : List.of("b", "a", "d", "c", "e")) {
            store.applyIfNewer(b(k), Record.value(1, b("v" + k)));
        }
        store.applyIfNewer(b("c"), Record.tombstone(2));
        assertThat(keys(store.range(b("b"), b("e")))).containsExactly("b", "c", "d");
        assertThat(keys(store.range(b("a"), null))).containsExactly("a", "b", "c", "d", "e");
        assertThat(keys(store.range(b("e"), b("b")))).isEmpty();
        assertThat(keys(store.range(b("f"), null))).isEmpty();
        try (RangeCursor c = store.range(b("c"), b("d"))) {
            assertThat(c.next()).isTrue();
            assertThat(c.record().isTombstone()).isTrue();
            assertThat(c.next()).isFalse();
        }
    }

    @Test
    void keysOrderByUnsignedBytes() {
        store.applyIfNewer(new byte[] {(byte) 0xC3, (byte) 0xA9}, Record.value(1, b("e-acute")));
        store.applyIfNewer(b("z"), Record.value(1, b("z")));
        try (RangeCursor c = store.range(b("a"), null)) {
            assertThat(c.next()).isTrue();
            assertThat(c.key()).isEqualTo(b("z"));
            assertThat(c.next()).isTrue();
            assertThat(c.key()).containsExactly((byte) 0xC3, (byte) 0xA9);
        }
    }

    private static List<String> keys(RangeCursor cursor) {
        List<String> keys = new ArrayList<>();
        try (cursor) {
            while (cursor.next()) {
                keys.add(new String(cursor.key(), StandardCharsets.UTF_8));
            }
        }
        return keys;
    }

    @Test
    void dataSurvivesReopen() {
        store.applyIfNewer(b("k1"), Record.value(5, b("one")));
        store.applyIfNewer(b("k2"), Record.tombstone(6));
        store.close();
        store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20));
        assertThat(store.get(b("k1"))).isEqualTo(Record.value(5, b("one")));
        assertThat(store.get(b("k2"))).isEqualTo(Record.tombstone(6));
    }

    /** Data only on disk: flushed to an SST, then a reopen empties the block cache. */
    private void moveToDiskOnly() {
        store.flush();
        store.close();
        store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20));
    }

    /** One record at a time, as moves, repairs and hints apply them: a record on disk only still wins over an older copy. */
    @Test
    void aSingleApplyComparesAgainstARecordOnDiskOnly() {
        store.applyIfNewer(b("disk"), Record.value(100, b("disk-kept")));
        store.applyIfNewer(b("disk-tomb"), Record.tombstone(100));
        moveToDiskOnly();
        assertThat(store.getIfInMemory(b("disk"))).as("on disk only").isSameAs(Store.NOT_IN_MEMORY);
        assertThat(store.applyIfNewer(b("disk"), Record.value(99, b("older")))).isFalse();
        assertThat(store.applyIfNewer(b("disk-tomb"), Record.value(99, b("older"))))
                .isFalse();
        assertThat(store.get(b("disk")).value()).isEqualTo(b("disk-kept"));
        assertThat(store.get(b("disk-tomb"))).isEqualTo(Record.tombstone(100));
        assertThat(store.applyIfNewer(b("disk"), Record.value(101, b("newer")))).isTrue();
        assertThat(store.get(b("disk"))).isEqualTo(Record.value(101, b("newer")));
    }

    @Test
    void aRowCacheNeverServesAnOverwrittenRecord() {
        store.close();
        store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20).withRowCache(1 << 20));
        store.applyIfNewer(b("k"), Record.value(5, b("old")));
        store.flush();
        assertThat(store.get(b("k")))
                .as("read from the SST, now in the row cache")
                .isEqualTo(Record.value(5, b("old")));
        assertThat(store.applyIfNewer(b("k"), Record.value(6, b("new")))).isTrue();
        assertThat(store.get(b("k"))).isEqualTo(Record.value(6, b("new")));
        store.flush();
        assertThat(store.get(b("k"))).as("after a second flush").isEqualTo(Record.value(6, b("new")));
        assertThat(store.getIfInMemory(b("k"))).isEqualTo(Record.value(6, b("new")));
        assertThat(store.applyIfNewer(b("k"), Record.value(5, b("stale"))))
                .as("last write wins")
                .isFalse();
    }

    @Test
    void inMemoryReadsAnswerFromMemoryAndDeclineWhatOnlyTheDiskHas() {
        store.applyIfNewer(b("k"), Record.value(5, b("v")));
        store.applyIfNewer(b("gone"), Record.tombstone(6));
        assertThat(store.getIfInMemory(b("k"))).as("memtable").isEqualTo(Record.value(5, b("v")));
        assertThat(store.getIfInMemory(b("gone"))).as("tombstones are records").isEqualTo(Record.tombstone(6));
        assertThat(store.getIfInMemory(b("never"))).isNull();

        moveToDiskOnly();
        assertThat(store.getIfInMemory(b("k")))
                .as("only in an SST block not cached yet")
                .isSameAs(Store.NOT_IN_MEMORY);
        assertThat(store.getIfInMemory(b("never")))
                .as("the bloom filter says no without I/O")
                .isNull();
        assertThat(store.get(b("k"))).as("a blocking read loads the block").isEqualTo(Record.value(5, b("v")));
        assertThat(store.getIfInMemory(b("k"))).as("block cache").isEqualTo(Record.value(5, b("v")));
    }

    @Test
    void tryApplyIfNewerDeclinesWithoutChangingAnythingWhenTheCurrentRecordIsOnDiskOnly() {
        assertThat(store.tryApplyIfNewer(b("k"), Record.value(10, b("v10")))).isEqualTo(Store.TryApply.APPLIED);
        assertThat(store.tryApplyIfNewer(b("k"), Record.value(9, b("v9")))).isEqualTo(Store.TryApply.NOT_NEWER);
        assertThat(store.tryApplyIfNewer(b("k"), Record.value(11, b("v11")))).isEqualTo(Store.TryApply.APPLIED);

        moveToDiskOnly();
        assertThat(store.tryApplyIfNewer(b("k"), Record.value(12, b("v12")))).isEqualTo(Store.TryApply.WOULD_BLOCK);
        assertThat(store.tryApplyIfNewer(b("k"), Record.value(1, b("old"))))
                .as("cannot even tell it is older")
                .isEqualTo(Store.TryApply.WOULD_BLOCK);
        assertThat(store.get(b("k"))).as("nothing written").isEqualTo(Record.value(11, b("v11")));
        assertThat(store.tryApplyIfNewer(b("k"), Record.value(12, b("v12"))))
                .as("cached by the read")
                .isEqualTo(Store.TryApply.APPLIED);
        assertThat(store.tryApplyIfNewer(b("new"), Record.value(1, b("n"))))
                .as("a new key needs no read")
                .isEqualTo(Store.TryApply.APPLIED);
        assertThat(store.get(b("k")).value()).isEqualTo(b("v12"));
    }

    @Test
    void aFlushLeavesTheLastVersionOfEachKeyInMemoryForItsNextWrite() {
        assertThat(store.prepopulatesOnFlush())
                .as("RocksDB took prepopulate_block_cache=kFlushOnly")
                .isTrue();
        store.applyIfNewer(b("k"), Record.value(10, b("v10")));
        store.flush();
        assertThat(store.getIfInMemory(b("k")))
                .as("the flushed block is in the cache")
                .isEqualTo(Record.value(10, b("v10")));
        assertThat(store.tryApplyIfNewer(b("k"), Record.value(11, b("v11"))))
                .as("compared in memory, not sent to a worker")
                .isEqualTo(Store.TryApply.APPLIED);

        store.close(); // the same without the option: the flushed block is on disk only
        store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20).withPrepopulateOnFlush(false));
        assertThat(store.prepopulatesOnFlush()).isFalse();
        store.applyIfNewer(b("j"), Record.value(10, b("v10")));
        store.flush();
        assertThat(store.getIfInMemory(b("j"))).isSameAs(Store.NOT_IN_MEMORY);
        assertThat(store.tryApplyIfNewer(b("j"), Record.value(11, b("v11")))).isEqualTo(Store.TryApply.WOULD_BLOCK);
    }

    @Test
    void closingTheStoreClosesOpenCursorsFirst() {
        store.applyIfNewer(b("a"), Record.value(1, b("1")));
        store.applyIfNewer(b("b"), Record.value(1, b("2")));
        RangeCursor cursor = store.range(b("a"), null);
        assertThat(cursor.next()).isTrue();
        assertThat(store.stats().openCursors()).isEqualTo(1);
        store.close();
        assertThat(cursor.next())
                .as("a closed cursor ends instead of touching freed memory")
                .isFalse();
        assertThatThrownBy(() -> store.range(b("a"), null)).isInstanceOf(StoreException.class);
    }

    @Test
    void cursorsAreForgottenWhenClosed() {
        store.range(b("a"), null).close();
        assertThat(store.stats().openCursors()).isZero();
    }

    @Test
    void concurrentAppliesKeepTheNewestRecordPerKey() throws Exception {
        int threads = 8;
        int keys = 64;
        int perThread = 4_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<long[]>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(pool.submit(() -> {
                long[] maxApplied = new long[keys];
                go.await();
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                for (int i = 0; i < perThread; i++) {
                    int k = rnd.nextInt(keys);
                    long ts = rnd.nextLong(1, 1_000_000);
                    Record r = rnd.nextInt(10) == 0 ? Record.tombstone(ts) : Record.value(ts, b("v" + ts));
                    store.applyIfNewer(b("key" + k), r);
                    maxApplied[k] = Math.max(maxApplied[k], ts);
                }
                return maxApplied;
            }));
        }
        go.countDown();
        long[] expected = new long[keys];
        for (Future<long[]> f : results) {
            long[] m = f.get(60, TimeUnit.SECONDS);
            for (int k = 0; k < keys; k++) {
                expected[k] = Math.max(expected[k], m[k]);
            }
        }
        pool.shutdown();
        for (int k = 0; k < keys; k++) {
            Record stored = store.get(b("key" + k));
            assertThat(stored).as("key%d", k).isNotNull();
            assertThat(stored.timestamp())
                    .as("newest timestamp of key%d survives", k)
                    .isEqualTo(expected[k]);
        }
    }

    @Test
    void statsReportRocksDbFigures() {
        for (int i = 0; i < 100; i++) {
            store.applyIfNewer(b("k" + i), Record.value(1, new byte[100]));
        }
        StoreStats s = store.stats();
        assertThat(s.memtableBytes()).isPositive();
        assertThat(s.estimatedKeys()).isPositive();
        assertThat(s.pendingCompactionBytes()).isNotNegative();
        assertThat(s.writeStopped()).isZero();
        assertThat(s.flushWriteBytes()).as("nothing flushed yet").isZero();

        store.flush();
        assertThat(store.stats().flushWriteBytes())
                .as("the flush's table bytes")
                .isPositive();
        assertThat(store.stats().compactionWriteBytes()).isNotNegative();
    }
}
