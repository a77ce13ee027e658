package dev.dht.node.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LiveCheckpoint} through {@link RocksStore#checkpoint}, read back as a restore reads it. */
class LiveCheckpointTest {
    private static final long NO_LIMIT = Long.MAX_VALUE;
    private static final Runnable NOTHING = () -> {};

    @TempDir
    Path tmp;

    Path data;
    RocksStore store;

    @BeforeEach
    void open() {
        data = tmp.resolve("data");
        // 4 MiB memtables: the few hundred writes of a test stay in them unless a test flushes
        store = RocksStore.open(data, StorageOptions.node(4 << 20, 8 << 20));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void writesOnlyInTheMemtableAreInTheCheckpointTombstonesIncludedLaterWritesNot() {
        Map<String, Record> expected = new TreeMap<>();
        for (int i = 0; i < 200; i++) {
            put(expected, key(i), Record.value(10, b("v" + i)));
        }
        for (int i = 0; i < 20; i++) {
            put(expected, key(i), Record.tombstone(20));
        }
        put(expected, "never-a-value", Record.tombstone(20));
        assertThat(names(data, ".sst")).as("nothing flushed yet").isEmpty();
        assertThat(store.longProperty("rocksdb.num-entries-active-mem-table")).isEqualTo(221);

        LiveCheckpoint.Outcome outcome = store.checkpoint(tmp.resolve("ck"), NO_LIMIT, NOTHING);
        store.applyIfNewer(b(key(100)), Record.value(30, b("after")));
        store.applyIfNewer(b(key(150)), Record.tombstone(30));
        store.applyIfNewer(b("late"), Record.value(30, b("after")));

        assertThat(outcome.flushed()).isFalse();
        assertThat(read(tmp.resolve("ck"))).isEqualTo(expected);
        assertThat(names(tmp.resolve("ck"), ".sst"))
                .as("the checkpoint's records can only come from its WAL")
                .isEmpty();
        // the source is unchanged and still takes writes
        assertThat(store.get(b(key(100)))).isEqualTo(Record.value(30, b("after")));
        assertThat(store.get(b(key(0))).isTombstone()).isTrue();
        assertThat(store.get(b(key(199)))).isEqualTo(Record.value(10, b("v199")));
    }

    @Test
    void theCheckpointDoesNotFlush() {
        for (int i = 0; i < 100; i++) {
            store.applyIfNewer(b(key(i)), Record.value(10, b("v" + i)));
        }
        List<String> before = names(data, ".sst");

        store.checkpoint(tmp.resolve("ck"), NO_LIMIT, NOTHING);

        assertThat(names(data, ".sst")).isEqualTo(before);
        assertThat(store.longProperty("rocksdb.num-entries-active-mem-table")).isEqualTo(100);
        assertThat(store.longProperty("rocksdb.num-immutable-mem-table")).isZero();
    }

    @Test
    void aCheckpointIsTrustedAgainOnlyWholeAndFromThisBootOfTheMachine() throws IOException {
        store.applyIfNewer(b("k"), Record.value(10, b("v")));
        Path ck = tmp.resolve("ck");
        assertThat(RocksStore.checkpointIntact(ck)).as("none yet").isFalse();
        store.checkpoint(ck, NO_LIMIT, NOTHING);
        assertThat(RocksStore.checkpointIntact(ck)).isTrue();
        Path marker = LiveCheckpoint.bootMarker(ck);
        assertThat(Files.readString(marker).trim())
                .as("the boot it was taken in")
                .isEqualTo(Files.readString(Path.of("/proc/sys/kernel/random/boot_id"))
                        .trim());
        Files.writeString(marker, "another-boot");
        assertThat(RocksStore.checkpointIntact(ck))
                .as("taken before the machine restarted: copies not synced")
                .isFalse();
        Files.delete(marker);
        assertThat(RocksStore.checkpointIntact(ck)).isFalse();
        RocksStore.deleteCheckpoint(ck);
        assertThat(ck).doesNotExist();
        assertThat(marker).doesNotExist();
    }

    @Test
    void aRarelyWrittenSideFamilyDoesNotHoldTheWalBackBeyondTwoMemtables() {
        store.sideTable(RocksStore.HINTS).put(b("one-hint"), b("x")); // never written again: its memtable never fills
        byte[] value = new byte[512];
        for (int i = 0; i < 40_000; i++) { // about 22 MB of records through 4 MiB memtables
            value[0] = (byte) i;
            store.applyIfNewer(b(key(i)), Record.value(10, value));
        }
        LiveCheckpoint.Outcome outcome = store.checkpoint(tmp.resolve("ck"), NO_LIMIT, NOTHING);
        // two memtables' worth (8 MiB) plus the WAL file being written when the bound was reached
        assertThat(outcome.walBytes()).as("WAL in the checkpoint").isLessThan(16L << 20);
        assertThat(read(tmp.resolve("ck"))).hasSize(40_000);
    }

    @Test
    void overTheWalLimitItFlushesAndTheCheckpointStillHoldsEverything() {
        Map<String, Record> expected = new TreeMap<>();
        for (int i = 0; i < 100; i++) {
            put(expected, key(i), i % 10 == 0 ? Record.tombstone(10) : Record.value(10, b("v" + i)));
        }

        LiveCheckpoint.Outcome outcome = store.checkpoint(tmp.resolve("ck"), 0, NOTHING);

        assertThat(outcome.flushed()).isTrue();
        assertThat(names(data, ".sst")).isNotEmpty(); // the same measure that stays empty without a flush
        assertThat(store.longProperty("rocksdb.num-entries-active-mem-table")).isZero();
        assertThat(read(tmp.resolve("ck"))).isEqualTo(expected);
    }

    /**
     * A flush that ends after the live files are read: the checkpoint keeps the table files and the MANIFEST of
     * before it, the WAL the flush made obsolete stays until the checkpoint is done, and goes once deletions are on
     * again (RocksDB purges what became obsolete when the last holder re-enables them).
     */
    @Test
    void aFlushDuringTheCheckpointLeavesItConsistentAndDeletionsAreOnAgainAfter() {
        Map<String, Record> expected = new TreeMap<>();
        for (int i = 0; i < 100; i++) {
            put(expected, key(i), i % 10 == 0 ? Record.tombstone(10) : Record.value(10, b("a" + i)));
        }
        List<String> walsBefore = names(data, ".log");
        List<String> walsDuring = new ArrayList<>();
        Runnable flushMeanwhile = () -> {
            for (int i = 50; i < 150; i++) {
                put(expected, key(i), Record.value(20, b("b" + i)));
            }
            store.flush();
            for (int i = 0; i < 10; i++) {
                put(expected, key(i), Record.value(30, b("c" + i))); // over the tombstones: in the WAL only
            }
            walsDuring.addAll(names(data, ".log"));
        };

        LiveCheckpoint.Outcome outcome = store.checkpoint(tmp.resolve("ck"), NO_LIMIT, flushMeanwhile);

        assertThat(outcome.flushed()).isFalse();
        assertThat(names(data, ".sst")).as("the flush happened").isNotEmpty();
        assertThat(names(tmp.resolve("ck"), ".sst"))
                .as("not in the live files that were read")
                .isEmpty();
        assertThat(walsDuring).as("deletions were off: the obsolete WAL stayed").containsAll(walsBefore);
        assertThat(names(tmp.resolve("ck"), ".log")).containsAll(walsBefore);
        assertThat(read(tmp.resolve("ck"))).isEqualTo(expected);
        assertThat(names(data, ".log"))
                .as("deletions are on again: the obsolete WAL is gone")
                .doesNotContainAnyElementsOf(walsBefore);
    }

    /** All families share the WAL: the checkpoint opened as a store has the records and side tables written with it. */
    @Test
    void theCheckpointIsTheWholeDatabaseEveryFamilyIncluded() throws IOException {
        for (int i = 0; i < 50; i++) {
            store.applyIfNewer(b(key(i)), Record.value(10, b("v" + i)));
        }
        store.sideTable(RocksStore.HINTS).put(b("hint"), b("for later"));
        store.checkpoint(tmp.resolve("ck"), NO_LIMIT, NOTHING);
        store.sideTable(RocksStore.HINTS).put(b("hint-after"), b("x"));
        Path copy = Files.createDirectories(tmp.resolve("opened"));
        try (Stream<Path> files = Files.list(tmp.resolve("ck"))) {
            for (Path f : files.toList()) {
                Files.copy(f, copy.resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
            }
        }

        try (RocksStore opened = RocksStore.open(copy, StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(opened.createdAtOpen()).isFalse();
            for (int i = 0; i < 50; i++) {
                assertThat(opened.get(b(key(i)))).isEqualTo(store.get(b(key(i))));
            }
            assertThat(opened.sideTable(RocksStore.HINTS).contains(b("hint"))).isTrue();
            assertThat(opened.sideTable(RocksStore.HINTS).contains(b("hint-after")))
                    .isFalse();
        }
    }

    /** The last WAL is copied while RocksDB writes it: a copy that ends inside a record must still open. */
    @Test
    void aRecordCutAtTheEndOfTheLastWalIsDroppedAndTheRestOpens() throws IOException {
        Map<String, Record> expected = new TreeMap<>();
        for (int i = 0; i < 100; i++) {
            put(expected, key(i), Record.value(10, b("v" + i))); // one WAL record each
        }
        store.checkpoint(tmp.resolve("ck"), NO_LIMIT, NOTHING);
        List<String> wals = names(tmp.resolve("ck"), ".log");
        try (RandomAccessFile last =
                new RandomAccessFile(tmp.resolve("ck").resolve(wals.getLast()).toFile(), "rw")) {
            last.setLength(last.length() - 5);
        }
        expected.remove(key(99));

        assertThat(read(tmp.resolve("ck"))).isEqualTo(expected);
    }

    /**
     * Checkpoints under a writer whose memtables flush every few hundred writes (so flushes and compactions end during
     * the copies): each holds every write acknowledged before it started, and nothing but a prefix of the writes.
     */
    @Test
    void underConcurrentWritesAndFlushesEachCheckpointIsAPrefixHoldingEverythingAcknowledgedBefore() throws Exception {
        store.close();
        store = RocksStore.open(data, StorageOptions.node(64 << 10, 8 << 20)); // RocksDB's smallest memtable
        AtomicInteger acknowledged = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try {
            Future<?> writes = writer.submit(() -> {
                for (int i = 0; !stop.get(); i++) {
                    store.applyIfNewer(b(key(i)), Record.value(i + 1, new byte[100]));
                    acknowledged.set(i + 1);
                }
            });
            for (int c = 0; c < 8; c++) {
                int before = acknowledged.get();
                Path ck = tmp.resolve("ck" + c);
                assertThat(store.checkpoint(ck, NO_LIMIT, NOTHING).flushed()).isFalse();
                int after = acknowledged.get();
                Map<String, Record> got = read(ck);
                assertThat(got.size()).as("checkpoint %d", c).isBetween(before, after + 1);
                for (int i = 0; i < got.size(); i++) {
                    assertThat(got.get(key(i)))
                            .as("checkpoint %d, write %d", c, i)
                            .isEqualTo(Record.value(i + 1, new byte[100]));
                }
            }
            stop.set(true);
            writes.get();
        } finally {
            stop.set(true);
            writer.shutdownNow();
        }
        assertThat(names(data, ".sst")).as("flushes happened meanwhile").isNotEmpty();
    }

    private void put(Map<String, Record> expected, String key, Record record) {
        assertThat(store.applyIfNewer(b(key), record)).isTrue();
        expected.put(key, record);
    }

    private static Map<String, Record> read(Path checkpoint) {
        Map<String, Record> out = new LinkedHashMap<>();
        try (CheckpointReader reader = new CheckpointReader(checkpoint);
                RangeCursor cursor = reader.records(new byte[0])) {
            while (cursor.next()) {
                out.put(new String(cursor.key(), StandardCharsets.UTF_8), cursor.record());
            }
        }
        return out;
    }

    private static List<String> names(Path dir, String suffix) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(suffix))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String key(int i) {
        return String.format("k%07d", i);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
