package dev.dht.node.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.movement.RecordBatch;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StorageOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restoring member's inbox: batches checked as they arrive, kept across a restart (a frame cut short by a crash
 * cut off, nothing acknowledged lost), and loaded with the newest copy of each key, tombstones included.
 */
class InboxTest {
    private static final long MAX_AHEAD = 1_000_000;

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] batch(Object... keysAndRecords) {
        RecordBatch batch = new RecordBatch();
        for (int i = 0; i < keysAndRecords.length; i += 2) {
            batch.add(b((String) keysAndRecords[i]), (Record) keysAndRecords[i + 1]);
        }
        return batch.toBytes();
    }

    private Inbox inbox() {
        return new Inbox(dir.resolve("restore"), ts -> ts < MAX_AHEAD, 1 << 20);
    }

    @Test
    void copiesFromSeveralSendersLoadAsTheNewestOfEachKeyAcrossARestart() throws IOException {
        Inbox inbox = inbox();
        inbox.take(
                "r1",
                batch("a", Record.value(10, b("a-old")), "b", Record.value(30, b("b-new")), "c", Record.tombstone(50)));
        inbox.take(
                "r1",
                batch(
                        "a",
                        Record.value(20, b("a-new")),
                        "b",
                        Record.value(25, b("b-old")),
                        "c",
                        Record.value(40, b("c-deleted"))));
        assertThat(inbox.records("r1")).isEqualTo(6);
        inbox.close();

        // a crash in the middle of an append leaves half a frame: cut off at the next open
        Path journal = dir.resolve("restore").resolve("received-r1").resolve("journal");
        long whole = Files.size(journal);
        try (FileChannel ch = FileChannel.open(journal, StandardOpenOption.APPEND)) {
            ch.write(ByteBuffer.wrap(new byte[] {0x44, 0x48, 0x54, 0x4A, 0, 0, 1, 0, 9, 9}));
        }
        Inbox again = inbox();
        assertThat(again.records("r1")).as("what was acknowledged is all there").isEqualTo(6);
        assertThat(Files.size(journal)).isEqualTo(whole);
        again.take("r1", batch("d", Record.value(5, b("d"))));

        try (RocksStore store = RocksStore.open(dir.resolve("data"), StorageOptions.node(4 << 20, 8 << 20))) {
            var result = again.load("r1", store);
            assertThat(result.loaded()).isEqualTo(4);
            assertThat(store.get(b("a"))).isEqualTo(Record.value(20, b("a-new")));
            assertThat(store.get(b("b"))).isEqualTo(Record.value(30, b("b-new")));
            assertThat(store.get(b("c")))
                    .as("the tombstone beats the older value")
                    .isEqualTo(Record.tombstone(50));
            assertThat(store.get(b("d"))).isEqualTo(Record.value(5, b("d")));
            assertThatThrownBy(() -> again.take("r1", batch("e", Record.value(1, b("late")))))
                    .as("a late copy once loading began")
                    .isInstanceOf(IllegalStateException.class);
            again.delete("r1");
        }
        assertThat(dir.resolve("restore").resolve("received-r1")).doesNotExist();
        assertThat(again.records("r1")).isZero();
    }

    @Test
    void aLoadDoneAgainAfterACrashChangesNothing() throws IOException {
        Inbox inbox = inbox();
        inbox.take("r1", batch("a", Record.value(10, b("a")), "b", Record.tombstone(11)));
        try (RocksStore store = RocksStore.open(dir.resolve("data"), StorageOptions.node(4 << 20, 8 << 20))) {
            assertThat(inbox.load("r1", store).loaded()).isEqualTo(2);
            // died before "loaded" was saved: the restart loads the same journal again
            var again = inbox().load("r1", store);
            assertThat(again.loaded()).isZero();
            assertThat(again.keptStored()).isEqualTo(2);
            assertThat(store.get(b("a"))).isEqualTo(Record.value(10, b("a")));
            assertThat(store.get(b("b"))).isEqualTo(Record.tombstone(11));
        }
    }

    @Test
    void aBadBatchIsRefusedWithWhereAndNothingIsKept() {
        Inbox inbox = inbox();
        byte[] unsorted = batch("b", Record.value(1, b("x")), "a", Record.value(1, b("y")));
        assertThatThrownBy(() -> inbox.take("r1", unsorted))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ascending");
        byte[] truncated = java.util.Arrays.copyOf(batch("a", Record.value(1, b("x"))), 9);
        assertThatThrownBy(() -> inbox.take("r1", truncated))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at byte");
        byte[] badVersion = batch("a", Record.value(1, b("x")));
        badVersion[4 + 1 + 4] = 9; // the record's format version
        assertThatThrownBy(() -> inbox.take("r1", badVersion))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version");
        assertThat(inbox.records("r1")).isZero();
    }

    @Test
    void recordsStampedBeyondTheClocksBoundAreLeftOut() throws IOException {
        Inbox inbox = inbox();
        var kept = inbox.take(
                "r1",
                batch(
                        "a",
                        Record.value(1, b("ok")),
                        "b",
                        Record.value(MAX_AHEAD + 5, b("far")),
                        "c",
                        Record.tombstone(2)));
        assertThat(kept.count()).isEqualTo(2);
        assertThat(kept.refused()).isEqualTo(1);
        try (RocksStore store = RocksStore.open(dir.resolve("data"), StorageOptions.node(4 << 20, 8 << 20))) {
            inbox.load("r1", store);
            assertThat(store.get(b("a"))).isEqualTo(Record.value(1, b("ok")));
            assertThat(store.get(b("b"))).isNull();
            assertThat(store.get(b("c"))).isEqualTo(Record.tombstone(2));
        }
    }
}
