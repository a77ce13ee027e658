package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member of S killed (SIGKILL) in the middle of streaming during 3 -> 5, under load, and started again on its
 * data: it resumes its move from its persisted state and resume point, the move completes, and every
 * acknowledged key is on each of its replicas (read from each alone) and reads back exactly. While the victim is down
 * the load keeps getting writes acknowledged and reads answered right. The move rate is throttled low so that the
 * kill lands mid-stream.
 */
class KillDuringMoveIT {
    /** Writes acknowledged and reads answered right, each, while the victim is down. */
    static final int AFTER_KILL = 200;

    @TempDir
    Path dir;

    @Test
    void aSenderKilledMidStreamResumesAndNothingIsLost() throws Exception {
        try (ScalingCluster c = new ScalingCluster(
                dir, 5, i -> List.of("--replication-factor", "3", "--move-rate", "32KiB", "--move-batch", "16KiB"))) {
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
        c.setMembers(3);
        c.start(0, 1, 2);
        c.awaitIdle(List.of(0, 1, 2), 3, Duration.ofMinutes(1));
        try (QuorumLoad load = new QuorumLoad(c, 2, 100, 0, 1, 2)) {
            await().atMost(Duration.ofMinutes(2)).until(() -> load.acknowledged() >= 6000);
            load.via(0, 1);
            int victim = 2;
            Map<String, byte[]> beforeMove = load.acknowledgedKeys();
            c.setMembers(5);
            c.start(3, 4);
            // the victim is streaming: it has sent two slices (its resume point is on disk) and has more to send
            await().atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        Map<String, Object> m = c.movement(victim);
                        return "moving".equals(m.get("state"))
                                && ((Number) ((Map<?, ?>) m.get("ranges")).get("done")).longValue() >= 2
                                && Boolean.FALSE.equals(m.get("sent"));
                    });
            c.kill(victim);
            // the load goes on without the victim: writes are acknowledged and reads answer right, both anew
            int ackedAtKill = load.acknowledged();
            long readsAtKill = load.readsRight();
            await().atMost(Duration.ofMinutes(1))
                    .until(() -> load.acknowledged() >= ackedAtKill + AFTER_KILL
                            && load.readsRight() >= readsAtKill + AFTER_KILL);
            c.start(victim);
            load.via(0, 1, 2, 3, 4);
            c.awaitIdle(List.of(0, 1, 2, 3, 4), 5, ScaleUpDownIT.MOVE_BOUND);
            assertThat(c.logs().since(new long[5]))
                    .contains("streaming for joint(1")
                    .contains("from a resume point");
            ScaleUpDownIT.assertOnEveryReplica(c, load, 5, "after the move");
            ScaleUpDownIT.assertStreamed(c, beforeMove, 3, 5, List.of(3, 4), new double[5]);
            load.close();
            assertThat(load.wrongReads())
                    .as("during the move (%s)", load.summary())
                    .isEmpty();
            ScaleUpDownIT.assertOnEveryReplica(c, load, 5, "at the end");
            assertThat(load.checkAll(0, 1, 2, 3, 4))
                    .as("after it (%s)", load.summary())
                    .isEmpty();
            System.out.println("kill during 3 -> 5: " + load.summary());
        }
    }
}
