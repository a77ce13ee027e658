package dev.dht.node.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StorageOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
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
}
