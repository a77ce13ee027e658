package dev.dht.node.cluster;

import static dev.dht.node.cluster.Reply.ACCEPTED;
import static dev.dht.node.cluster.Reply.CREATED;
import static dev.dht.node.cluster.TestData.randomId;
import static dev.dht.node.cluster.TestData.randomValue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.Headers;
import dev.dht.node.json.Json;
import dev.dht.node.natives.BackgroundPriority;
import dev.dht.node.storage.Record;
import dev.dht.node.support.MemberTlsMode;
import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.RawHttp;
import dev.dht.node.support.ThreadPolicies;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Anti-entropy repair between node processes, hints off and nothing read (so neither hints nor read repair can be
 * what heals), every replica checked directly (internal GETs: no coordination, no read repair). Writes, overwrites
 * and deletes acknowledged by one replica alone after a round reach the other two after the next round, which sends
 * exactly the missing copies; a round with nothing to repair compares everything and sends no record.
 */
class RepairIT {
    private static final int PER_KIND = 40;
    /**
     * A round leaves alone versions newer than its cutoff, 2 x --request-timeout (1 s) + 0.5 s behind its clock
     * (RepairSettings.inFlightMillis: such a write may still be on its way); the round this test counts on must see
     * every write of the test as settled. On a quiet machine the nodes restart within that window.
     */
    private static final Duration IN_FLIGHT = Duration.ofMillis(2 * 1000 + 500 + 200);

    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster =
            new ClusterExtension(3, () -> dir, i -> List.of("--hints", "false", "--repair-interval", "0s"));

    @Test
    void writesAcknowledgedByOneReplicaReachEveryReplicaAfterOneRoundAndAnIdleRoundSendsNothing(ProcessCluster c) {
        List<String> created = new ArrayList<>();
        List<String> overwritten = new ArrayList<>();
        List<String> deleted = new ArrayList<>();
        for (int k = 0; k < PER_KIND; k++) {
            created.add(randomId());
            overwritten.add(randomId());
            deleted.add(randomId());
        }
        for (String id : concat(overwritten, deleted)) {
            assertThat(c.node(0).put(id, randomValue(), 3, 3)).isEqualTo(CREATED);
        }
        List<String> all = concat(created, concat(overwritten, deleted));
        // A round while the replicas agree: every member builds its digest index now, so the round below must see
        // the writes made after it (node 0 keeps running: a repair reading its index of now would miss them all).
        long idleKeys = ReplicaRecords.total(c, "keysRepaired");
        ReplicaRecords.repairRound(c);
        assertThat(ReplicaRecords.total(c, "keysRepaired")).as("in sync").isEqualTo(idleKeys);
        Map<Integer, Map<String, Record>> before = new LinkedHashMap<>();
        before.put(1, ReplicaRecords.read(c.process(1), all));
        before.put(2, ReplicaRecords.read(c.process(2), all));

        // Two replicas down: every write is acknowledged by node 0 alone (1/3), and only node 0 stores it.
        c.stop(1);
        c.stop(2);
        for (String id : concat(created, overwritten)) {
            assertThat(c.node(0).put(id, randomValue(), 1, 3))
                    .as("PUT %s at 1/3", id)
                    .isEqualTo(CREATED);
        }
        for (String id : deleted) {
            assertThat(c.node(0).delete(id, 1, 3)).as("DELETE %s at 1/3", id).isEqualTo(ACCEPTED);
        }
        long lastWrite = System.nanoTime();
        c.startStopped();
        Map<String, Record> newest = ReplicaRecords.read(c.process(0), all);
        for (String id : all) {
            assertThat(newest.get(id)).as("node 0 holds %s", id).isNotNull();
            assertThat(newest.get(id).isTombstone()).isEqualTo(deleted.contains(id));
            for (int i = 1; i <= 2; i++) {
                assertThat(ReplicaRecords.read(c.process(i), id))
                        .as("node %d did not get %s", i, id)
                        .isEqualTo(before.get(i).get(id))
                        .isNotEqualTo(newest.get(id));
            }
        }

        long keys = ReplicaRecords.total(c, "keysRepaired");
        long compared = ReplicaRecords.total(c, "rangesCompared");
        long outOfSync = ReplicaRecords.total(c, "rangesOutOfSync");
        await().atMost(IN_FLIGHT.plusSeconds(5)).until(() -> System.nanoTime() - lastWrite > IN_FLIGHT.toNanos());
        assertThat(ReplicaRecords.repairRound(c))
                .as("3 members, RF 3: one replica set, one round")
                .isEqualTo(1);

        for (int i = 0; i < 3; i++) {
            assertThat(ReplicaRecords.read(c.process(i), all))
                    .as("node %d after one round", i)
                    .isEqualTo(newest);
        }
        assertThat(ReplicaRecords.total(c, "keysRepaired") - keys)
                .as("exactly the missing copies were sent: 2 replicas x %d keys", all.size())
                .isEqualTo(2L * all.size());
        assertThat(ReplicaRecords.total(c, "rangesCompared") - compared)
                .as("every arc of the ring")
                .isEqualTo(3 * 1024);
        assertThat(ReplicaRecords.total(c, "rangesOutOfSync") - outOfSync).isPositive();

        long bytes = ReplicaRecords.total(c, "bytesRepaired");
        long hashBytes = ReplicaRecords.total(c, "hashBytes");
        keys = ReplicaRecords.total(c, "keysRepaired");
        outOfSync = ReplicaRecords.total(c, "rangesOutOfSync");
        compared = ReplicaRecords.total(c, "rangesCompared");
        ReplicaRecords.repairRound(c);
        assertThat(ReplicaRecords.total(c, "keysRepaired"))
                .as("an idle round sends no record")
                .isEqualTo(keys);
        assertThat(ReplicaRecords.total(c, "bytesRepaired"))
                .as("nor any byte of records")
                .isEqualTo(bytes);
        assertThat(ReplicaRecords.total(c, "rangesOutOfSync")).isEqualTo(outOfSync);
        assertThat(ReplicaRecords.total(c, "rangesCompared") - compared)
                .as("but compares everything")
                .isEqualTo(3 * 1024);
        assertThat(ReplicaRecords.total(c, "hashBytes")).isGreaterThan(hashBytes);
        for (int i = 0; i < 3; i++) {
            assertThat(ReplicaRecords.read(c.process(i), all)).isEqualTo(newest);
        }
        scansRanInTheBackground(c);
    }

    /**
     * A comparison as of a moment further ahead of the member's clock than --max-clock-ahead is refused (400): the
     * member would stamp its digest index with that moment and reuse the index long after it is stale. A moment
     * within the bound is answered (docs/cluster.md, "Writes in flight").
     */
    @Test
    void aHashesCallAsOfAMomentFarAheadIsRefused(ProcessCluster c) throws IOException {
        NodeProcess node = c.process(0);
        try (RawHttp http =
                new RawHttp(MemberTlsMode.connect(node.memberUri("/").getPort()))) {
            http.send(
                    "GET /v0/internal/repair/state HTTP/1.1\r\nHost: localhost\r\n" + Headers.INTERNAL + ": 1\r\n\r\n");
            RawHttp.Reply state = http.read();
            assertThat(state.status()).isEqualTo(200);
            String ring = (String) Json.parseObject(state.bodyText()).get("ring");
            assertThat(ring).isNotNull();
            long now = HybridLogicalClock.of(System.currentTimeMillis(), 0);
            long dayAhead = HybridLogicalClock.of(
                    System.currentTimeMillis() + Duration.ofDays(1).toMillis(), 0);
            assertThat(hashes(http, ring, now).status()).as("as of now").isEqualTo(200);
            RawHttp.Reply ahead = hashes(http, ring, dayAhead);
            assertThat(ahead.status()).as("as of a day ahead").isEqualTo(400);
            assertThat(ahead.bodyText()).contains("--max-clock-ahead");
        }
    }

    /** POST /v0/internal/repair/hashes of no span (an empty query), as of the moment given. */
    private static RawHttp.Reply hashes(RawHttp http, String ring, long asOf) throws IOException {
        http.send(("POST /v0/internal/repair/hashes?ring=" + ring + "&asOf=" + asOf + " HTTP/1.1\r\nHost: localhost\r\n"
                        + Headers.INTERNAL + ": 1\r\nContent-Length: 4\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        http.send(new byte[4]); // int 0: no span
        return http.read();
    }

    /**
     * The rounds hashed and listed the store on repair's background threads, under SCHED_IDLE where the node can
     * lower threads: the coordinator's own ranges on dht-repair-scan, what it asked of the others on dht-repair-peer.
     * Every other thread, the repair thread that calls the peers and the one that sends the answers included, kept
     * the normal policy (docs/cluster.md, "Repair (anti-entropy)", Priority).
     */
    private static void scansRanInTheBackground(ProcessCluster c) {
        int lowered = BackgroundPriority.available() ? ThreadPolicies.SCHED_IDLE : ThreadPolicies.SCHED_OTHER;
        Set<String> background = Set.of("dht-repair-scan", "dht-repair-peer");
        Map<String, List<Integer>> scans = new TreeMap<>();
        for (int i = 0; i < 3; i++) {
            Map<String, List<Integer>> threads =
                    ThreadPolicies.of(c.process(i).process().pid());
            assertThat(threads.get("dht-repair"))
                    .as("node %d's repair thread", i)
                    .containsOnly(ThreadPolicies.SCHED_OTHER);
            for (Map.Entry<String, List<Integer>> t : threads.entrySet()) {
                if (background.contains(t.getKey())) {
                    scans.computeIfAbsent(t.getKey(), n -> new ArrayList<>()).addAll(t.getValue());
                } else {
                    assertThat(t.getValue())
                            .as("node %d's %s threads", i, t.getKey())
                            .containsOnly(ThreadPolicies.SCHED_OTHER);
                }
            }
        }
        assertThat(scans.get("dht-repair-scan"))
                .as("the coordinator's scans")
                .isNotEmpty()
                .containsOnly(lowered);
        assertThat(scans.get("dht-repair-peer"))
                .as("the scans asked of the other replicas")
                .hasSizeGreaterThan(1)
                .containsOnly(lowered);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
