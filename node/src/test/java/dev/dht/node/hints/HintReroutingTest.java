package dev.dht.node.hints;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StorageOptions;
import dev.dht.node.support.TestNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hints of a member that no longer serves (it left in a move) are not dropped: they go to their keys' current
 * replicas (trap 6 of the scaling notes); hints of a member that still serves wait for it; too old ones still
 * expire. Real RocksDB, real peer client (the member that stays is down: its hints must stay put).
 */
class HintReroutingTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void hintsOfADepartedMemberGoToTheKeysReplicas() {
        String stays = "http://127.0.0.1:" + TestNode.freePort(); // nothing listens: deliveries fail
        String gone = "http://gone.example:8080";
        AtomicLong wall = new AtomicLong(10_000_000);
        List<String> rerouted = new ArrayList<>();
        HintRouting routing = new HintRouting() {
            @Override
            public String header() {
                return "1.s.0000000000000000.- http://me:1";
            }

            @Override
            public boolean decided() {
                return true;
            }

            @Override
            public boolean serves(String member) {
                return member.equals(stays);
            }

            @Override
            public void reroute(byte[] key, Record record) {
                rerouted.add(new String(key, StandardCharsets.UTF_8) + "@" + record.timestamp());
            }
        };
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20));
                PeerClient client = new PeerClient(2, 8, Duration.ofMillis(500), Duration.ofSeconds(10))) {
            HintStore hints = new HintStore(store.sideTable(RocksStore.HINTS), 1 << 20, wall::get);
            hints.store(gone, b("old"), Record.value(1, b("x")));
            wall.addAndGet(Duration.ofHours(4).toMillis()); // "old" is now past the 3 h maximum age
            hints.store(gone, b("a"), Record.value(5, b("va")));
            hints.store(gone, b("b"), Record.tombstone(6));
            hints.store(stays, b("c"), Record.value(7, b("vc")));
            HintDelivery delivery = new HintDelivery(
                    hints,
                    routing,
                    client,
                    new HybridLogicalClock(wall::get),
                    wall::get,
                    Duration.ofHours(3),
                    Duration.ofHours(1),
                    Duration.ofMillis(500));
            try {
                delivery.round();
            } finally {
                delivery.close();
            }
            assertThat(rerouted).containsExactly("a@5", "b@6");
            assertThat(hints.rerouted()).isEqualTo(2);
            assertThat(hints.dropped()).as("too old, re-routed or not").isEqualTo(1);
            assertThat(hints.peers())
                    .as("only the down member that still serves keeps hints")
                    .containsExactly(stays);
            assertThat(hints.pending()).isEqualTo(1);
        }
    }

    @Test
    void nothingMovesWhileTheNodeHasNoTopology() {
        try (RocksStore store = RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20));
                PeerClient client = new PeerClient(2, 8, Duration.ofMillis(500), Duration.ofSeconds(10))) {
            HintStore hints = new HintStore(store.sideTable(RocksStore.HINTS), 1 << 20, System::currentTimeMillis);
            hints.store("http://gone:1", b("a"), Record.value(5, b("va")));
            HintRouting undecided = new HintRouting() {
                @Override
                public String header() {
                    return null;
                }

                @Override
                public boolean decided() {
                    return false;
                }

                @Override
                public boolean serves(String member) {
                    throw new AssertionError("not asked while undecided");
                }

                @Override
                public void reroute(byte[] key, Record record) {
                    throw new AssertionError("not asked while undecided");
                }
            };
            HintDelivery delivery = new HintDelivery(
                    hints,
                    undecided,
                    client,
                    new HybridLogicalClock(),
                    System::currentTimeMillis,
                    Duration.ofHours(3),
                    Duration.ofHours(1),
                    Duration.ofMillis(500));
            delivery.round();
            delivery.close();
            assertThat(hints.pending()).isEqualTo(1);
        }
    }
}
