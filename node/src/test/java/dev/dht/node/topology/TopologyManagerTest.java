package dev.dht.node.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.ClusterMembers;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.replication.Topology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state owner's rules, on a real data directory: what it adopts from peers (a later stage of its own move, or a
 * later epoch; never a sibling move), what it persists and resumes, when a cleanup becomes due, when it is
 * drained.
 */
class TopologyManagerTest {
    private static final String SELF = "http://a:1";
    private static final ClusterMembers S = ClusterMembers.of(List.of("http://a:1", "http://b:1", "http://c:1"));
    private static final ClusterMembers T =
            ClusterMembers.of(List.of("http://a:1", "http://b:1", "http://c:1", "http://d:1"));
    private static final ClusterMembers U = ClusterMembers.of(List.of("http://a:1", "http://b:1", "http://e:1"));

    @TempDir
    Path dir;

    private PeerClient client;

    @BeforeEach
    void client() {
        client = new PeerClient(1, 4, Duration.ofMillis(200), Duration.ofSeconds(10));
    }

    @AfterEach
    void close() {
        client.close();
    }

    private TopologyManager open(Topology topology, Duration timeout) throws Exception {
        return TopologyManager.persistent(SELF, dir, topology, client, new HybridLogicalClock(), timeout, m -> true);
    }

    private static TopologyReport from(String who, TopologyState s) {
        return new TopologyReport(who, s, true, false);
    }

    @Test
    void adoptsLaterStagesAndEpochsButNeverASiblingMove() throws Exception {
        Topology topology = new Topology(SELF, 3, null);
        try (TopologyManager m = open(topology, Duration.ofSeconds(1))) {
            assertThat(m.state()).isNull();
            assertThat(topology.view().decided()).isFalse();
            TopologyState s0 = TopologyState.initial(S);
            assertThat(m.adopt(from("http://b:1", s0), "test"))
                    .as("a new node takes any state")
                    .isTrue();
            assertThat(topology.view().state()).isEqualTo(s0);

            TopologyState a1 = s0.announce(T);
            TopologyState j1 = a1.joint();
            assertThat(m.adopt(from("http://b:1", j1), "test"))
                    .as("a later stage of the same move")
                    .isTrue();
            assertThat(m.adopt(from("http://b:1", a1), "test")).as("older").isFalse();
            assertThat(m.adopt(from("http://b:1", new TopologyState(1, Stage.STABLE, U, null)), "test"))
                    .as("finalized to another set under the same epoch: not this move's lineage")
                    .isFalse();
            assertThat(m.state()).isEqualTo(j1);
            assertThat(m.adopt(new TopologyReport("http://e:1", null, false, false), "test"))
                    .as("a peer without a state teaches nothing")
                    .isFalse();

            TopologyState a2 = j1.finish().announce(U);
            assertThat(m.adopt(from("http://b:1", a2), "test"))
                    .as("a later epoch: steps were missed, taken")
                    .isTrue();
            assertThat(topology.view().state()).isEqualTo(a2);
            assertThat(m.progress().cleanupPending())
                    .as("moving again: no cleanup now")
                    .isFalse();
        }
    }

    @Test
    void finishingItsOwnMoveMakesACleanupDueAmongAllParticipants() throws Exception {
        Topology topology = new Topology(SELF, 3, null);
        try (TopologyManager m = open(topology, Duration.ofSeconds(1))) {
            TopologyState j1 = TopologyState.initial(S).announce(T).joint();
            m.install(TopologyState.initial(S), "test");
            assertThat(m.progress().cleanupPending()).isFalse();
            m.install(j1, "test");
            m.markSent(j1);
            m.saveResumeKey(j1, new byte[] {7});
            assertThat(m.progress().sent()).isTrue();
            assertThat(m.install(j1.finish(), "test")).isTrue();
            assertThat(m.progress().cleanupPending()).isTrue();
            assertThat(m.progress().cleanupAmong()).containsExactlyElementsOf(T.urls());
            assertThat(m.progress().sent()).as("progress belongs to a state").isFalse();
            m.markSent(j1); // late progress of the old state: ignored
            assertThat(m.progress().sent()).isFalse();
            m.cleanupFinished(j1.finish());
            assertThat(m.progress().cleanupPending()).isFalse();
        }
    }

    @Test
    void aRestartResumesTheStateAndItsProgress() throws Exception {
        TopologyState j1 = TopologyState.initial(S).announce(T).joint();
        try (TopologyManager m = open(new Topology(SELF, 3, null), Duration.ofSeconds(1))) {
            m.install(TopologyState.initial(S), "test");
            m.install(j1, "test");
            m.saveResumeKey(j1, new byte[] {1, 2});
        }
        Topology again = new Topology(SELF, 3, null);
        try (TopologyManager m = open(again, Duration.ofSeconds(1))) {
            assertThat(m.state()).isEqualTo(j1);
            assertThat(again.view().joint()).isTrue();
            assertThat(m.progress().resumeKey()).containsExactly(1, 2);
            assertThat(again.view().admits(TopologyState.version(1, Stage.ANNOUNCED)))
                    .as("no grace after a restart: others may be streaming")
                    .isFalse();
        }
    }

    @Test
    void drainedTwoRequestTimeoutsAfterTheSwitchToJoint() throws Exception {
        Topology topology = new Topology(SELF, 3, null);
        try (TopologyManager m = open(topology, Duration.ofMillis(100))) {
            m.install(TopologyState.initial(S), "test");
            assertThat(m.drained()).as("only the joint stage drains").isTrue();
            TopologyState a1 = TopologyState.initial(S).announce(T);
            m.install(a1, "test");
            long switched = System.nanoTime();
            m.install(a1.joint(), "test");
            assertThat(m.drained()).isFalse();
            assertThat(topology.view().admits(a1.version())).as("grace").isTrue();
            await().atMost(Duration.ofSeconds(10)).until(m::drained);
            assertThat(System.nanoTime() - switched)
                    .isGreaterThanOrEqualTo(Duration.ofMillis(450).toNanos());
            assertThat(topology.view().admits(a1.version())).as("grace over").isFalse();
            assertThat(m.report().drained()).isTrue();
        }
    }
}
