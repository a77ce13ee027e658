package dev.dht.node.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.loop.SelectorLoop;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-of-pass write group on a real RocksDB: last write wins across the writes of one group and against the
 * store, nothing waits (a busy key lock or a record only on disk comes back as wouldBlock), one RocksDB write per
 * group. The group is driven by hand here; a selector loop calls endOfPass the same way.
 */
class PassWriteGroupTest {
    @TempDir
    Path dir;

    RocksStore store;
    SelectorLoop loop;

    @BeforeEach
    void open() throws Exception {
        store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20));
        loop = new SelectorLoop(one.nio.net.Selector.create(), "test-loop"); // never started: only its task lists
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Records what happened to each write. */
    static final class Outcomes {
        final List<String> seen = new ArrayList<>();

        WriteOutcome named(String name) {
            return new WriteOutcome() {
                @Override
                public void applied() {
                    seen.add(name + ":applied");
                }

                @Override
                public void notNewer(Record current) {
                    seen.add(name + ":notNewer@" + current.timestamp());
                }

                @Override
                public void wouldBlock() {
                    seen.add(name + ":wouldBlock");
                }

                @Override
                public void failed(StoreException e) {
                    seen.add(name + ":failed");
                }
            };
        }
    }

    @Test
    void oneGroupAppliesItsWritesInOrderWithLastWriteWins() {
        store.applyIfNewer(b("old"), Record.value(50, b("stored")));
        PassWriteGroup group = new PassWriteGroup(store.recordFamily());
        Outcomes o = new Outcomes();
        group.add(loop, b("k"), Record.value(10, b("v10")), o.named("a"));
        group.add(loop, b("k"), Record.value(20, b("v20")), o.named("b"));
        group.add(loop, b("k"), Record.value(15, b("v15")), o.named("c")); // older than b in the same group
        group.add(loop, b("old"), Record.value(40, b("late")), o.named("d")); // older than what is stored
        group.add(loop, b("new"), Record.tombstone(5), o.named("e"));
        long groupsBefore = store.writeGroups();
        long writesBefore = store.groupedWrites();

        group.endOfPass();

        assertThat(o.seen).containsExactly("a:applied", "b:applied", "c:notNewer@20", "d:notNewer@50", "e:applied");
        assertThat(store.get(b("k"))).isEqualTo(Record.value(20, b("v20")));
        assertThat(store.get(b("old"))).isEqualTo(Record.value(50, b("stored")));
        assertThat(store.get(b("new"))).isEqualTo(Record.tombstone(5));
        assertThat(store.writeGroups() - groupsBefore).as("one group").isEqualTo(1);
        assertThat(store.groupedWrites() - writesBefore).as("of five writes").isEqualTo(5);
    }

    @Test
    void largeGroupsFindEarlierWritesOfTheSameKeyToo() {
        PassWriteGroup group = new PassWriteGroup(store.recordFamily());
        Outcomes o = new Outcomes();
        for (int i = 0; i < 40; i++) {
            group.add(loop, b("key" + (i % 10)), Record.value(100 - i, b("v" + i)), o.named("w" + i));
        }
        group.endOfPass();
        for (int k = 0; k < 10; k++) {
            assertThat(store.get(b("key" + k)).timestamp())
                    .as("the first (newest) write of key%d wins", k)
                    .isEqualTo(100 - k);
        }
        assertThat(o.seen.stream().filter(s -> s.endsWith(":applied"))).hasSize(10);
    }

    @Test
    void aKeyLockedByAnotherThreadOrOnlyOnDiskWouldBlockAndNothingIsWritten() throws Exception {
        store.applyIfNewer(b("cold"), Record.value(1, b("on disk")));
        store.flush();
        store.close();
        store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20)); // block cache empty

        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ReentrantLock lock = store.stripe(b("busy"));
        Thread worker = new Thread(() -> {
            lock.lock();
            try {
                held.countDown();
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        });
        worker.start();
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
        try {
            PassWriteGroup group = new PassWriteGroup(store.recordFamily());
            Outcomes o = new Outcomes();
            group.add(loop, b("busy"), Record.value(2, b("x")), o.named("busy"));
            group.add(loop, b("cold"), Record.value(2, b("y")), o.named("cold"));
            group.add(loop, b("fresh"), Record.value(2, b("z")), o.named("fresh"));
            group.endOfPass(); // returns although "busy" stays locked: it never waits

            assertThat(o.seen).containsExactly("busy:wouldBlock", "cold:wouldBlock", "fresh:applied");
            assertThat(store.get(b("cold"))).isEqualTo(Record.value(1, b("on disk")));
            assertThat(store.get(b("fresh"))).isEqualTo(Record.value(2, b("z")));
        } finally {
            release.countDown();
            worker.join(30_000);
        }
        assertThat(store.get(b("busy"))).as("nothing written for the busy key").isNull();
    }

    @Test
    void writesMadeByOutcomesStartTheNextGroup() {
        PassWriteGroup group = new PassWriteGroup(store.recordFamily());
        List<String> order = new ArrayList<>();
        group.add(loop, b("first"), Record.value(1, b("1")), new Outcomes().named("first"));
        // an outcome that writes again (an answer starting the next pipelined request does this)
        group.add(loop, b("second"), Record.value(1, b("2")), new WriteOutcome() {
            @Override
            public void applied() {
                order.add("second applied");
                group.add(loop, b("third"), Record.value(1, b("3")), new Outcomes().named("third"));
            }

            @Override
            public void notNewer(Record current) {}

            @Override
            public void wouldBlock() {}

            @Override
            public void failed(StoreException e) {}
        });
        group.endOfPass();
        assertThat(order).containsExactly("second applied");
        assertThat(store.get(b("third"))).as("not yet: it is in the next group").isNull();
        group.endOfPass();
        assertThat(store.get(b("third"))).isEqualTo(Record.value(1, b("3")));
    }
}
