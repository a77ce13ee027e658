package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.json.Json;
import dev.dht.node.storage.Record;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cassandra's removenode, between node processes on a cluster file, hints off: four members at RF 3 under a quorum
 * write load, and the one that would start every move (the proposer) dies for good. Without a way to forget it no
 * move can start or end; forgotten through one member, the others move to the three that are left (the file still
 * lists four), re-replicating its ranges from the replicas that remain, and every acknowledged key ends on each of
 * its three replicas, read from each directly.
 */
class ForgetIT {
    @TempDir
    Path dir;

    @Test
    void aMemberGoneForGoodIsForgottenAndItsRangesAreReReplicatedFromTheOthers() throws Exception {
        try (ScalingCluster c =
                new ScalingCluster(dir, 4, i -> List.of("--replication-factor", "3", "--hints", "false"))) {
            long[] logStart = c.logs().lengths();
            try {
                run(c);
            } catch (Throwable t) {
                System.err.println("==== what the nodes logged:\n" + c.logs().since(logStart));
                throw t;
            }
        }
    }

    private static void run(ScalingCluster c) throws Exception {
        c.setMembers(4);
        c.start(0, 1, 2, 3);
        c.awaitIdle(List.of(0, 1, 2, 3), 4, Duration.ofMinutes(1));
        int dead = c.proposerOf(4); // the worst one to lose: it alone would start the next move
        int[] live =
                java.util.stream.IntStream.range(0, 4).filter(i -> i != dead).toArray();
        List<String> left = new ArrayList<>();
        for (int i : live) {
            left.add(c.url(i));
        }
        left = ClusterMembers.of(left).urls();
        try (QuorumLoad load = new QuorumLoad(c, 2, 50, live)) {
            await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= 600);
            c.kill(dead);
            int before = load.acknowledged();
            await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= before + 300);

            Map<String, Object> answer = forget(c, live[0], c.url(dead));
            assertThat(answer.get("forgotten")).isEqualTo(c.url(dead));
            assertThat(answer.get("notReached")).asList().isEmpty();
            List<String> expected = left;
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .until(() -> java.util.Arrays.stream(live).allMatch(i -> idleOn(c, i, expected)));
            int after = load.acknowledged();
            await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= after + 300);
            load.close();

            assertThat(load.wrongReads())
                    .as("no read wrong at any moment (%s)", load.summary())
                    .isEmpty();
            Map<String, byte[]> acked = load.acknowledgedKeys();
            assertThat(acked).hasSizeGreaterThan(1200);
            for (int i : live) {
                for (Map.Entry<String, byte[]> e : acked.entrySet()) {
                    Record r = ReplicaRecords.read(c.process(i), e.getKey());
                    assertThat(r)
                            .as("%s on node %d, one of its three replicas now", e.getKey(), i)
                            .isNotNull();
                    assertThat(r.value()).isEqualTo(e.getValue());
                }
            }
            assertThat(load.checkAll(live)).isEmpty();
            for (int i : live) {
                assertThat(c.process(i).get("/v0/admin/forget").body())
                        .asString(StandardCharsets.UTF_8)
                        .contains(c.url(dead));
            }
        }
    }

    /** Idle and stable, serving exactly these members. */
    private static boolean idleOn(ScalingCluster c, int i, List<String> members) {
        Map<String, Object> m = c.movement(i);
        Map<?, ?> t = (Map<?, ?>) m.get("topology");
        return "idle".equals(m.get("state")) && "stable".equals(t.get("phase")) && members.equals(t.get("members"));
    }

    private static Map<String, Object> forget(ScalingCluster c, int via, String member) throws Exception {
        var p = c.process(via);
        HttpResponse<byte[]> r = p.send(
                HttpRequest.newBuilder(
                                p.uri("/v0/admin/forget?member=" + URLEncoder.encode(member, StandardCharsets.UTF_8)))
                        .POST(HttpRequest.BodyPublishers.noBody()),
                Duration.ofSeconds(30));
        assertThat(r.statusCode())
                .as(new String(r.body(), StandardCharsets.UTF_8))
                .isEqualTo(202);
        return Json.parseObject(new String(r.body(), StandardCharsets.UTF_8));
    }
}
