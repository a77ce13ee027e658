package dev.dht.node.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StorageOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sweeper on a real RocksDB: purges old tombstones only, never a record written after it looked. */
class TombstoneSweeperTest {
    @TempDir
    Path dir;

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long at(long millis) {
        return HybridLogicalClock.of(millis, 0);
    }

    @Test
    void purgesTombstonesOlderThanTheGraceAndNothingElse() {
        long now = 1_000_000;
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            store.applyIfNewer(key("old-tombstone"), Record.tombstone(at(now - 10_000)));
            store.applyIfNewer(key("young-tombstone"), Record.tombstone(at(now - 10)));
            store.applyIfNewer(key("old-value"), Record.value(at(now - 10_000), key("v")));
            TombstoneSweeper sweeper = new TombstoneSweeper(store, Duration.ofSeconds(1), () -> now);
            try {
                assertThat(sweeper.sweep(100)).isEqualTo(1);
                assertThat(store.get(key("old-tombstone"))).isNull();
                assertThat(store.get(key("young-tombstone"))).isNotNull();
                assertThat(store.get(key("old-value"))).isNotNull();
                assertThat(sweeper.purged()).isEqualTo(1);
            } finally {
                sweeper.close();
            }
        }
    }

    @Test
    void slicesResumeWhereTheyStoppedAndWrapAround() {
        long now = 1_000_000;
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            for (int i = 0; i < 25; i++) {
                store.applyIfNewer(key(String.format("k%02d", i)), Record.tombstone(at(now - 10_000)));
            }
            TombstoneSweeper sweeper = new TombstoneSweeper(store, Duration.ofHours(1), () -> now + 3_600_000);
            try {
                assertThat(sweeper.sweep(10)).isEqualTo(10);
                assertThat(sweeper.sweep(10)).isEqualTo(10);
                assertThat(sweeper.sweep(10)).isEqualTo(5);
                store.applyIfNewer(key("a-late"), Record.tombstone(at(now - 10_000)));
                assertThat(sweeper.sweep(10)).as("wrapped around to the start").isEqualTo(1);
            } finally {
                sweeper.close();
            }
        }
    }

    @Test
    void aWriteRacingTheSweeperIsNeverLost() throws Exception {
        long now = 1_000_000;
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            int keys = 20_000;
            for (int i = 0; i < keys; i++) {
                store.applyIfNewer(key("k" + i), Record.tombstone(at(now - 10_000)));
            }
            TombstoneSweeper sweeper = new TombstoneSweeper(store, Duration.ofHours(1), () -> now + 3_600_000);
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                for (int i = 0; i < keys && !stop.get(); i += 2) {
                    store.applyIfNewer(key("k" + i), Record.value(at(now), key("new")));
                }
            });
            try {
                writer.start();
                while (sweeper.sweep(1_000) > 0 || writer.isAlive()) {
                    // sweep slice after slice while the writer overwrites every other key
                }
                writer.join();
                for (int i = 0; i < keys; i += 2) {
                    assertThat(store.get(key("k" + i))).as("k" + i).isEqualTo(Record.value(at(now), key("new")));
                }
                for (int i = 1; i < keys; i += 2) {
                    assertThat(store.get(key("k" + i))).as("k" + i).isNull();
                }
            } finally {
                stop.set(true);
                sweeper.close();
            }
        }
    }

    @Test
    void aPassScansOnlyWhenATombstoneMayBeThere() {
        long now = 1_000_000;
        long later = now + 3_600_001; // past the grace of a tombstone written at now
        long[] wall = {now};
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            for (int i = 0; i < 50; i++) {
                store.applyIfNewer(key("k" + i), Record.value(at(now - 10_000), key("v")));
            }
            TombstoneSweeper sweeper = new TombstoneSweeper(store, Duration.ofHours(1), () -> wall[0]);
            try {
                // A pass that scans all 50 records ends (limit above them): passes() counts it; a skipped one not.
                sweeper.sweep(100);
                assertThat(sweeper.passes())
                        .as("a new store that took only values: no scan")
                        .isZero();

                store.applyIfNewer(key("k7"), Record.tombstone(at(now)));
                sweeper.sweep(100);
                assertThat(sweeper.passes())
                        .as("a delete came in: the pass scans")
                        .isEqualTo(1);
                assertThat(store.get(key("k7")))
                        .as("younger than the grace: kept")
                        .isNotNull();
                sweeper.sweep(100);
                assertThat(sweeper.passes())
                        .as("a tombstone was left: the next pass scans again")
                        .isEqualTo(2);

                wall[0] = later;
                assertThat(sweeper.sweep(100)).isEqualTo(1);
                assertThat(sweeper.passes()).isEqualTo(3);
                sweeper.sweep(100);
                sweeper.sweep(100);
                assertThat(sweeper.passes())
                        .as("the last pass left none, none came since: no scan")
                        .isEqualTo(3);

                store.applyAllIfNewer(List.of(key("k9")), List.of(Record.tombstone(at(now))));
                assertThat(sweeper.sweep(100))
                        .as("a grouped delete is counted too")
                        .isEqualTo(1);
                assertThat(store.get(key("k9"))).isNull();
            } finally {
                sweeper.close();
            }
        }
    }

    @Test
    void aTombstoneWrittenBehindARunningPassIsFoundByTheNext() {
        long now = 1_000_000;
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            for (int i = 0; i < 30; i++) {
                store.applyIfNewer(key(String.format("k%02d", i)), Record.value(at(now - 10_000), key("v")));
            }
            store.applyIfNewer(key("k29"), Record.tombstone(at(now - 5_000)));
            TombstoneSweeper sweeper = new TombstoneSweeper(store, Duration.ofHours(1), () -> now + 3_600_000);
            try {
                assertThat(sweeper.sweep(10)).isZero(); // k00-k09
                store.applyIfNewer(key("k03"), Record.tombstone(at(now - 5_000))); // behind the pass
                sweeper.sweep(10);
                assertThat(sweeper.sweep(20)).as("k29 purged, the pass ends").isEqualTo(1);
                assertThat(sweeper.passes()).isEqualTo(1);
                assertThat(store.get(key("k03"))).as("not seen by that pass").isNotNull();
                assertThat(sweeper.sweep(100))
                        .as("it came in after the pass started: the next one scans")
                        .isEqualTo(1);
                assertThat(store.get(key("k03"))).isNull();
            } finally {
                sweeper.close();
            }
        }
    }

    @Test
    void aStoreOpenedWithRecordsIsScannedOnce() {
        long now = 1_000_000;
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            store.applyIfNewer(key("gone"), Record.tombstone(at(now - 10_000)));
        }
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20))) {
            TombstoneSweeper sweeper = new TombstoneSweeper(store, Duration.ofHours(1), () -> now + 3_600_000);
            try {
                assertThat(sweeper.sweep(100))
                        .as("what the store held at open is looked at")
                        .isEqualTo(1);
                sweeper.sweep(100);
                assertThat(sweeper.passes()).isEqualTo(1);
            } finally {
                sweeper.close();
            }
        }
    }
}
