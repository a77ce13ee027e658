package dev.dht.node.cluster;

import static dev.dht.node.cluster.Reply.CREATED;
import static dev.dht.node.cluster.TestData.randomId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.storage.Record;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member whose data directory is lost, between node processes with hints off (nothing but the rebuild can give
 * it the data), every replica checked directly (internal GETs, which neither coordinate nor repair). Under load,
 * node 1 first misses writes while it is stopped, so that once node 2 is wiped some acknowledged writes are on node
 * 0 alone: a wiped node that served at once would answer quorum reads with node 1 without them. Node 2 pulls
 * slowly ({@code --repair-rate}), so that the load runs while it rebuilds and a restart can hit it midway.
 */
class RebuildIT {
    private static final int WIPED = 2;

    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension(
            3,
            () -> dir,
            i -> i == WIPED
                    ? List.of("--hints", "false", "--repair-interval", "0s", "--repair-rate", "512KiB")
                    : List.of("--hints", "false", "--repair-interval", "0s"));

    @Test
    void aWipedMemberRebuildsUnderAQuorumLoadServesNoStaleReadAndEndsWithTheNewestRecordOfEveryKey(ProcessCluster c)
            throws Exception {
        QuorumModel model = new QuorumModel();
        List<String> keys = new ArrayList<>();
        for (int k = 0; k < 1500; k++) {
            String key = "r" + randomId();
            String value = key + ":preloaded";
            assertThat(c.node(k % 3).put(key, value.getBytes(StandardCharsets.UTF_8), 3, 3))
                    .isEqualTo(CREATED);
            model.preloaded(key, value);
            keys.add(key);
        }
        model.start(c, 4, c::isRunning);
        awaitAcknowledged(model, 300);
        // Node 1 misses some writes (hints off): they are on nodes 0 and 2 only, and after the wipe on node 0 only.
        c.stop(1);
        awaitAcknowledged(model, model.acknowledged() + 300);
        c.start(1);
        c.stop(WIPED);
        c.wipe(WIPED);
        awaitAcknowledged(model, model.acknowledged() + 300); // writes and deletes node 2 misses for good
        c.start(WIPED);
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> "ready".equals(ReplicaRecords.rebuildState(c.process(WIPED))));
        awaitAcknowledged(model, model.acknowledged() + 300); // and some more with node 2 serving again
        model.stop();

        assertThat(model.violations())
                .as("quorum reads older than the last acknowledged write")
                .isEmpty();
        assertThat(model.reads()).isGreaterThan(100);
        assertThat(ReplicaRecords.total(c.process(WIPED), "keysReceived"))
                .as("pulled by the rebuild")
                .isGreaterThan(1000);
        int tombstones = 0;
        for (String key : keys) {
            Record newest = null;
            for (int i = 0; i < 3; i++) {
                Record r = ReplicaRecords.read(c.process(i), key);
                if (r != null && (newest == null || r.supersedes(newest))) {
                    newest = r;
                }
            }
            assertThat(ReplicaRecords.read(c.process(WIPED), key))
                    .as("the rebuilt member's copy of %s", key)
                    .isEqualTo(newest);
            assertThat(model.allows(key, newest))
                    .as("%s: %s, acknowledged %s", key, newest, model.acked(key))
                    .isTrue();
            if (newest != null && newest.isTombstone()) {
                tombstones++;
            }
        }
        assertThat(tombstones)
                .as("deletes happened, and their tombstones are on the rebuilt member")
                .isPositive();
    }

    @Test
    void aRebuildRestartedMidwayResumesWhereItWas(ProcessCluster c) {
        List<String> keys = preload(c, 3000, 1024);
        c.stop(WIPED);
        c.wipe(WIPED);
        c.start(WIPED);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> rangesDone(c) > 0);
        int done = rangesDone(c);
        assertThat(done).as("still rebuilding when killed").isLessThan(rangesTotal(c));
        c.kill(WIPED);
        c.start(WIPED);
        Map<String, Object> rebuild = rebuild(c);
        assertThat(rebuild.get("state"))
                .as("resumed, not decided again: its store is not new any more")
                .isEqualTo("rebuilding");
        assertThat(((Number) rebuild.get("rangesDone")).intValue())
                .as("from where it was")
                .isGreaterThanOrEqualTo(done);
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> "ready".equals(ReplicaRecords.rebuildState(c.process(WIPED))));
        assertThat(ReplicaRecords.read(c.process(WIPED), keys)).isEqualTo(ReplicaRecords.read(c.process(0), keys));
    }

    @Test
    void aRebuildThatCannotReachEveryOtherReplicaWaitsAndSaysSoServingNoRead(ProcessCluster c) {
        List<String> keys = preload(c, 200, 100);
        c.stop(1);
        c.stop(WIPED);
        c.wipe(WIPED);
        c.start(WIPED);
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() ->
                        assertThat(rebuild(c).get("waitingFor")).asString().contains(c.url(1)));
        assertThat(rebuild(c).get("state")).isEqualTo("rebuilding");
        String own = keys.stream()
                .filter(k -> c.replicasOf(k, 1).equals(List.of(WIPED)))
                .findFirst()
                .orElseThrow();
        assertThat(c.node(WIPED).get(own, 1, 1).status())
                .as("its only replica: no read from a partial copy")
                .isEqualTo(503);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ReplicaRecords.read(c.process(WIPED), keys.get(0)))
                .hasMessageContaining("503");
        c.start(1);
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> "ready".equals(ReplicaRecords.rebuildState(c.process(WIPED))));
        assertThat(ReplicaRecords.read(c.process(WIPED), keys)).isEqualTo(ReplicaRecords.read(c.process(0), keys));
    }

    private static List<String> preload(ProcessCluster c, int n, int size) {
        List<String> keys = new ArrayList<>();
        byte[] value = new byte[size];
        for (int k = 0; k < n; k++) {
            String key = "p" + randomId();
            java.util.concurrent.ThreadLocalRandom.current().nextBytes(value);
            assertThat(c.node(k % 3).put(key, value, 3, 3)).isEqualTo(CREATED);
            keys.add(key);
        }
        return keys;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> rebuild(ProcessCluster c) {
        return (Map<String, Object>) ReplicaRecords.status(c.process(WIPED)).get("rebuild");
    }

    private static int rangesDone(ProcessCluster c) {
        return ((Number) rebuild(c).get("rangesDone")).intValue();
    }

    private static int rangesTotal(ProcessCluster c) {
        return ((Number) rebuild(c).get("rangesTotal")).intValue();
    }

    private static void awaitAcknowledged(QuorumModel model, long count) {
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> model.acknowledged() >= count);
    }
}
