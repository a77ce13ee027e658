package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.release.FeatureLevel;
import dev.dht.node.release.Release;
import dev.dht.node.support.FeatureLevels;
import dev.dht.node.support.MemberTlsMode;
import dev.dht.node.support.RawHttp;
import dev.dht.node.support.Releases;
import dev.dht.node.support.ReplicaCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upgrade as the operator runs it (docs/upgrading.md), with real node processes: three members of the release
 * before this one (its jar, built from the commit releases.tsv names and cached per machine: {@link Releases}),
 * replication factor 3, under a quorum writer and reader (2/3). Each member in turn is taken out of service (the
 * load stops sending to it, as a Service drops a pod that is not ready), stopped with SIGTERM (it drains), started
 * on this build's jar, and waited for: serving, and the hints the others kept for it delivered. Then one member is
 * rolled back to the previous release and forward again (allowed until the feature level is raised), and the level
 * is raised on every member. Claims: no request of the whole roll failed, no read was wrong, and every
 * acknowledged write is on each of its three replicas, read from each replica's own store (the member protocol's
 * local GET /v0/entities, which repairs nothing). Once the level is raised, a member of the previous release is
 * refused by the others, by name: its quorum writes fail and the refusal says what to run.
 *
 * <p>40-46 s here (3 rolls, a rollback and a roll forward: a JVM start each; 2 writers and 2 readers at 40/s);
 * the first run on a machine also builds the previous release's jar (one Maven run, ~1-2 min, then cached).
 */
class UpgradeIT {
    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // the members' logs stay for a failure
    static Path dir;

    @Test
    void rollsFromThePreviousReleaseAndBackWithNoFailedRequestThenRaisesTheLevel() throws Exception {
        String previous = Releases.previous(Release.VERSION);
        Path old = Releases.jar(previous);
        try (ProcessCluster c = ProcessCluster.startRunning(
                dir, 3, i -> List.of("--replication-factor", "3", "--drain-time", "1s"), i -> old)) {
            for (int i = 0; i < 3; i++) {
                assertThat(FeatureLevels.release(c.process(i)))
                        .as("release %s names none on /v0/status", previous)
                        .isEmpty();
            }
            Map<String, byte[]> acked;
            try (QuorumLoad load = new QuorumLoad(c::node, 2, 40, 0, 1, 2)) {
                awaitProgress(load, 200);
                for (int i = 0; i < 3; i++) {
                    roll(c, load, i, null);
                }
                for (int i = 0; i < 3; i++) {
                    assertThat(FeatureLevels.release(c.process(i))).isEqualTo(Release.VERSION);
                    assertThat(FeatureLevels.level(c.process(i)))
                            .as("a new member keeps the old level until told")
                            .isEqualTo(FeatureLevel.BASE);
                }
                roll(c, load, 2, old); // rolled back: the cluster still speaks the previous release's dialect
                roll(c, load, 2, null);
                for (int i = 0; i < 3; i++) {
                    FeatureLevels.raise(c.process(i), FeatureLevel.RACKS);
                    assertThat(FeatureLevels.level(c.process(i))).isEqualTo(FeatureLevel.RACKS);
                }
                awaitProgress(load, 200);
                load.close();
                System.out.println("upgrade " + previous + " -> " + Release.VERSION + ": " + load.summary());
                assertThat(load.failedRequests())
                        .as("requests failed during the upgrade (%s)", load.summary())
                        .isZero();
                assertThat(load.wrongReads()).as(load.summary()).isEmpty();
                acked = load.acknowledgedKeys();
            }
            assertThat(ReplicaCheck.onUrls(acked, c.members().urls(), 3).missing(Duration.ofSeconds(30)))
                    .as("each of the %d acknowledged writes on each of its 3 replicas, read locally", acked.size())
                    .isEmpty();

            // the level is raised: the previous release cannot come back
            c.stop(2);
            c.runJar(2, old);
            c.start(2);
            Reply refused = c.node(2).put(TestData.randomId(), TestData.randomValue(), 2, 3);
            assertThat(refused.status())
                    .as(
                            "a quorum write through a member of %s once the level is raised: its" + " peers refuse it",
                            previous)
                    .isEqualTo(504);
            try (RawHttp member = new RawHttp(
                    MemberTlsMode.connect(c.process(0).memberUri("/").getPort()))) {
                // what a member of the previous release sends: the member protocol, naming no release
                member.send("GET /v0/entity?id=x HTTP/1.1\r\nHost: localhost\r\nX-Dht-Internal: 1\r\n\r\n");
                RawHttp.Reply reply = member.read();
                assertThat(reply.status()).isEqualTo(403);
                assertThat(reply.bodyText())
                        .contains("this cluster runs at feature level 2")
                        .contains("Run it at release 0.2.0 or later");
            }
            assertThat(c.process(0).output())
                    .as("the member says in its log why it refuses")
                    .contains("which members of releases before 0.2.0 do not understand");
        }
    }

    /**
     * Rolls node i to jar (null: this build's) as the operator does: out of service, SIGTERM, started on the jar,
     * serving, the others' hints for it delivered, and the load through it again.
     */
    private static void roll(ProcessCluster c, QuorumLoad load, int i, Path jar) {
        load.via(IntStream.range(0, c.size()).filter(n -> n != i).toArray());
        c.stop(i);
        c.runJar(i, jar);
        c.start(i);
        load.via(0, 1, 2);
        awaitProgress(load, 100);
        String to = jar == null ? Release.VERSION : jar.toString();
        assertThat(load.failedRequests())
                .as("requests failed by the roll of node %d to %s (%s)", i, to, load.summary())
                .isZero();
        await().atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(c.metricSum("dht_hints_pending", 0, 1, 2))
                        .as("hints not delivered after the roll of" + " node %d to %s (%s)", i, to, load.summary())
                        .isZero());
    }

    private static void awaitProgress(QuorumLoad load, int writes) {
        int at = load.acknowledged();
        await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= at + writes);
    }
}
