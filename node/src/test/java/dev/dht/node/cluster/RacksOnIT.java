package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.release.FeatureLevel;
import dev.dht.node.support.FeatureLevels;
import dev.dht.node.support.ReplicaCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Turning racks on for a running cluster is a move (docs/cluster.md, "Racks"): three members on a cluster file
 * without racks, replication factor 2, writes at 2/2 and reads at 1/2 through every member; the file then puts
 * node 0 in rack zone-a and nodes 1 and 2 in zone-b, the members stay up. Every key then has one replica in each
 * rack, so node 0 must get every key it did not hold (about a third): the move streams them. Checked on each
 * replica's own copy (no quorum read, no repair) and through the load: nothing acknowledged is lost, no read is
 * wrong at any moment.
 */
class RacksOnIT {
    @TempDir
    Path dir;

    @Test
    void turningRacksOnUnderLoadMovesTheChangedReplicasAndLosesNothing() throws Exception {
        ScalingCluster.run(dir, 3, i -> List.of("--replication-factor", "2"), RacksOnIT::run);
    }

    private static void run(ScalingCluster c) throws Exception {
        c.setMembers(3);
        c.start(0, 1, 2);
        c.awaitIdle(List.of(0, 1, 2), 3, Duration.ofMinutes(1));
        try (QuorumLoad load = new QuorumLoad(c::node, new QuorumLoad.Quorum(2, 2, 1, 2), 2, 60, 0, 1, 2)) {
            await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= 1000);

            Map<String, byte[]> before = load.acknowledgedKeys();
            double receivedBefore = c.metric(0, "dht_movement_records_received_total");
            var withoutRacks = c.members(3);
            for (int i = 0; i < 3; i++) { // racks need the feature level that has them, on every member first
                FeatureLevels.raise(c.process(i), FeatureLevel.RACKS);
            }
            c.setMembers(3, i -> i == 0 ? "zone-a" : "zone-b");
            c.awaitIdle(List.of(0, 1, 2), 3, ScaleUpDownIT.MOVE_BOUND);

            assertThat(ReplicaCheck.onUrls(before, c.members(3), 2).missing(ScaleUpDownIT.COPIES_BOUND))
                    .as(
                            "right after the move, each of the %d keys acknowledged before it on each of its 2 replicas in"
                                    + " racks, read locally (%s)",
                            before.size(), load.summary())
                    .isEmpty();
            int due = ReplicaCheck.onUrls(before, c.members(3), 2).newCopiesOn(c.url(0), withoutRacks, 2);
            assertThat(due).as("keys node 0 had to get").isGreaterThan(before.size() / 5);
            assertThat(c.metric(0, "dht_movement_records_received_total") - receivedBefore)
                    .as("records streamed to node 0: both old replicas send each of the %d keys it lacked", due)
                    .isGreaterThanOrEqualTo(2.0 * due);

            int last = load.acknowledged();
            await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= last + 300);
            load.close();
            Map<String, byte[]> acked = load.acknowledgedKeys();
            ReplicaCheck racked = ReplicaCheck.onUrls(acked, c.members(3), 2);
            assertThat(racked.keysOn(c.url(0)))
                    .as("zone-a's only member is a replica of every key")
                    .isEqualTo(acked.size());
            assertThat(racked.missing(ScaleUpDownIT.COPIES_BOUND))
                    .as(
                            "each of the %d acknowledged keys on each of its 2 replicas in racks, read locally (%s)",
                            acked.size(), load.summary())
                    .isEmpty();
            assertThat(load.wrongReads())
                    .as("during the whole run (%s)", load.summary())
                    .isEmpty();
            assertThat(load.checkAll(0, 1, 2))
                    .as("at the end (%s)", load.summary())
                    .isEmpty();
            assertThat(load.readsRight()).as("reads happened throughout").isGreaterThan(1000);
            System.out.println("racks on: " + load.summary());
        }
    }
}
