package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.support.ReplicaCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 49's measurement, as a test: six members in three racks of two ({@code zone-a=..., zone-b=...} in the
 * member list), replication factor 3, a quorum load (PUT and GET at 2/3) through every member. Both members of one
 * rack are SIGKILLed at once: no quorum request through the others fails, because every key has one replica in
 * each rack. Then a second rack is killed: every key still reads at 1/3 through the last rack's members, and each
 * key's replica there holds it (asked on its member port, no quorum read, no repair).
 *
 * <p>With rack-blind placement (the ring ignoring racks) the first kill fails about a fifth of the quorum requests
 * and the second leaves keys with no copy at all: docs/placement.md, "Racks".
 */
class RackLossIT {
    private static final List<String> RACKS = List.of("zone-a", "zone-a", "zone-b", "zone-b", "zone-c", "zone-c");

    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster =
            new ClusterExtension(6, () -> dir, i -> List.of("--replication-factor", "3"), RACKS::get);

    @Test
    void losingARackFailsNoQuorumRequestAndLosingTwoLosesNoKey(ProcessCluster c) throws Exception {
        Map<String, byte[]> acked;
        try (QuorumLoad load = new QuorumLoad(c::node, 3, 60, 0, 1, 2, 3, 4, 5)) {
            await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= 1000);
            load.via(0, 1, 2, 3); // the coordinators that survive: requests through a killed one are not the claim
            await().atMost(Duration.ofSeconds(10)).until(() -> load.acknowledged() >= 1100);
            long failedBefore = load.failedRequests();
            int ackedBefore = load.acknowledged();
            long readsBefore = load.readsRight();
            c.kill(4);
            c.kill(5);
            await().atMost(Duration.ofMinutes(1))
                    .until(() -> load.acknowledged() >= ackedBefore + 1000 && load.readsRight() >= readsBefore + 1000);
            load.close();
            assertThat(load.failedRequests() - failedBefore)
                    .as("quorum requests failed with rack zone-c down (%s)", load.summary())
                    .isZero();
            assertThat(load.wrongReads()).as(load.summary()).isEmpty();
            assertThat(load.checkAll(0, 1, 2, 3))
                    .as("every acknowledged key at 2/3, zone-c down")
                    .isEmpty();
            acked = load.acknowledgedKeys();
            System.out.println("rack zone-c down: " + load.summary());
        }

        c.kill(2);
        c.kill(3);
        // each key's replica in zone-a holds it, by itself (hints for it were delivered while zone-b was up)
        ReplicaCheck check = ReplicaCheck.onUrls(acked, c.members(), 3);
        List<ReplicaCheck.Copy> inZoneA = check.expected().stream()
                .filter(copy -> copy.member().equals(c.url(0)) || copy.member().equals(c.url(1)))
                .toList();
        assertThat(inZoneA).as("one replica of each key in zone-a").hasSize(acked.size());
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(check.check(inZoneA))
                        .as("copies missing in zone-a")
                        .isEmpty());
        List<String> unreadable = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : acked.entrySet()) {
            for (int via : new int[] {0, 1}) {
                Reply r = c.node(via).get(e.getKey(), 1, 3);
                if (r.status() != 200 || !Arrays.equals(r.body(), e.getValue())) {
                    unreadable.add(e.getKey() + " via node " + via + ": " + r);
                }
            }
        }
        assertThat(unreadable)
                .as("keys not read at 1/3 with only zone-a up, of %d", acked.size())
                .isEmpty();
    }
}
