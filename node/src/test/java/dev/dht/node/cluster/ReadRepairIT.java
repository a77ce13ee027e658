package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read repair between node processes (no course scenario: the course's bonus stage). Hinted handoff is off on
 * every node, so a replica that missed writes stays stale until GETs at full RF through the other nodes find it
 * stale and repair it; then, restarted alone, it holds the newest state of every key.
 */
class ReadRepairIT {
    private static final int STALE = 2;

    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension(3, () -> dir, i -> List.of("--hints", "false"));

    @Test
    void fullReadsThroughOtherNodesRepairAStaleReplica(ProcessCluster c) {
        MissedWrites writes = MissedWrites.prepare(c, 10);
        c.stop(STALE);
        writes.writeThrough(c, 0, 1);
        assertThat(c.metricSum("dht_hints_stored_total", 0, 1))
                .as("hints are off")
                .isZero();
        assertThat(LocalCopies.readAlone(c, STALE, writes.ids()))
                .as("the replica, alone, missed every write")
                .isEqualTo(writes.before());
        c.start(STALE);

        int k = 0;
        for (Map.Entry<String, Reply> e : writes.after().entrySet()) {
            int via = k++ % 2;
            assertThat(c.node(via).get(e.getKey(), 3, 3))
                    .as("GET 3/3 %s via node %d", e.getKey(), via)
                    .isEqualTo(e.getValue());
        }

        // one repair per key, counted by the coordinator once the stale replica accepted it
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() ->
                        assertThat(c.metricSum("dht_read_repairs_total", 0, 1)).isEqualTo(writes.size()));
        assertThat(LocalCopies.readAlone(c, STALE, writes.ids()))
                .as("the replica, alone, after the reads")
                .isEqualTo(writes.after());
    }
}
