package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hinted handoff between node processes (no course scenario: the course's bonus stage). A replica that was down
 * while the others wrote at 2/3 gets every write from the coordinators' hints once it is back, with no read at
 * all, so read repair cannot be what healed it; then, restarted alone, it holds the newest state of every key.
 */
class HintedHandoffIT {
    private static final int DOWN = 2;

    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster =
            new ClusterExtension(3, () -> dir, i -> List.of("--hint-interval", "200ms"));

    @Test
    void aReplicaThatWasDownCatchesUpWithoutAnyRead(ProcessCluster c) {
        MissedWrites writes = MissedWrites.prepare(c, 10);
        c.stop(DOWN);
        writes.writeThrough(c, 0, 1);
        // The client is answered once ack=2 replicas stored the write; the down replica's failure (and its hint)
        // may come a moment later: awaited, not assumed.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(c.metricSum("dht_hints_stored_total", 0, 1))
                    .as("one hint per write the replica missed")
                    .isEqualTo(writes.size());
            assertThat(c.metricSum("dht_hints_pending", 0, 1)).isEqualTo(writes.size());
        });

        c.start(DOWN);

        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    assertThat(c.metricSum("dht_hints_pending", 0, 1)).isZero();
                    assertThat(c.metricSum("dht_hints_delivered_total", 0, 1)).isEqualTo(writes.size());
                });
        assertThat(c.metricSum("dht_read_repairs_total", 0, 1, 2))
                .as("nothing was read, nothing repaired")
                .isZero();
        assertThat(LocalCopies.readAlone(c, DOWN, writes.ids()))
                .as("what the replica holds, alone")
                .isEqualTo(writes.after());
    }
}
