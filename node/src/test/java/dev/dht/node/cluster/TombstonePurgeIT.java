package dev.dht.node.cluster;

import static dev.dht.node.cluster.Reply.ACCEPTED;
import static dev.dht.node.cluster.Reply.CREATED;
import static dev.dht.node.cluster.Reply.NOT_FOUND;
import static dev.dht.node.cluster.TestData.randomId;
import static dev.dht.node.cluster.TestData.randomValue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.storage.Record;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cassandra's gc_grace trap, between node processes with hints off and a 3 s tombstone grace: a replica stopped
 * while keys are deleted still holds their values. The tombstones outlive the grace because that replica took no
 * part in a repair since (the purge is gated on repair); when it comes back (down longer than the grace, it first
 * pulls its ranges from the others: the tombstones) the keys stay deleted, and after a round the tombstones are
 * purged on every replica. With the purge on the grace alone the other replicas drop the tombstones while it is
 * away, and its values come back.
 */
class TombstonePurgeIT {
    private static final int DOWN = 2;
    private static final Duration GRACE = Duration.ofSeconds(3);

    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension(
            3,
            () -> dir,
            i -> List.of("--hints", "false", "--repair-interval", "0s", "--tombstone-grace", GRACE.toSeconds() + "s"));

    @Test
    void aDeleteMissedByAStoppedReplicaStaysDeletedAfterTheGraceThePurgeAndItsReturn(ProcessCluster c) {
        List<String> ids = new ArrayList<>();
        for (int k = 0; k < 20; k++) {
            ids.add(randomId());
            assertThat(c.node(k % 3).put(ids.get(k), randomValue(), 3, 3)).isEqualTo(CREATED);
        }
        c.stop(DOWN);
        for (String id : ids) {
            assertThat(c.node(0).delete(id, 2, 3)).isEqualTo(ACCEPTED);
        }
        long deletedAt = System.currentTimeMillis();
        // Rounds cannot succeed without the stopped replica: asked for, they fail (or wait for their coordinator).
        ReplicaRecords.requestRound(c);
        // Past the grace, and then three whole passes of each sweeper: an ungated sweeper has purged by then.
        await().atMost(Duration.ofSeconds(60)).until(() -> System.currentTimeMillis() > deletedAt + GRACE.toMillis());
        double[] sweeps = {c.metric(0, "dht_tombstone_sweeps_total"), c.metric(1, "dht_tombstone_sweeps_total")};
        await().atMost(Duration.ofSeconds(60))
                .until(() -> c.metric(0, "dht_tombstone_sweeps_total") >= sweeps[0] + 3
                        && c.metric(1, "dht_tombstone_sweeps_total") >= sweeps[1] + 3);
        for (int i = 0; i < 2; i++) {
            for (String id : ids) {
                Record r = ReplicaRecords.read(c.process(i), id);
                assertThat(r)
                        .as("node %d keeps the tombstone of %s past the grace: node %d missed it", i, id, DOWN)
                        .isNotNull();
                assertThat(r.isTombstone()).isTrue();
            }
            assertThat(c.metric(i, "dht_tombstones_purged_total")).isZero();
        }
        assertThat(ReplicaRecords.total(c, "rounds"))
                .as("no round succeeded without node %d", DOWN)
                .isZero();

        // Down longer than the grace, the returning replica serves no read before it pulled its ranges from the
        // others: the tombstones, which they kept because it had missed them.
        c.start(DOWN);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "ready".equals(ReplicaRecords.rebuildState(c.process(DOWN))));
        assertThat(ReplicaRecords.total(c.process(DOWN), "keysReceived")).isGreaterThanOrEqualTo(ids.size());
        for (String id : ids) {
            assertThat(ReplicaRecords.read(c.process(DOWN), id).isTombstone())
                    .as("%s on the returned replica", id)
                    .isTrue();
        }
        for (int i = 0; i < 3; i++) {
            for (String id : ids) {
                assertThat(c.node(i).get(id, 2, 3))
                        .as("GET %s through node %d after the replica's return", id, i)
                        .isEqualTo(NOT_FOUND);
            }
        }
        ReplicaRecords.repairRound(c);
        // Now every replica took part in a repair after the deletes: the tombstones go, everywhere.
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            for (int i = 0; i < 3; i++) {
                assertThat(c.metric(i, "dht_tombstones_purged_total"))
                        .as("purged on node %d", i)
                        .isEqualTo(ids.size());
            }
        });
        for (int i = 0; i < 3; i++) {
            for (String id : ids) {
                assertThat(ReplicaRecords.read(c.process(i), id))
                        .as("node %d holds nothing for %s", i, id)
                        .isNull();
                assertThat(c.node(i).get(id, 3, 3)).isEqualTo(NOT_FOUND);
            }
        }
        // And a round now (purged tombstones compare as absent) brings nothing back.
        ReplicaRecords.repairRound(c);
        for (int i = 0; i < 3; i++) {
            for (String id : ids) {
                assertThat(ReplicaRecords.read(c.process(i), id)).isNull();
            }
        }
    }
}
