package dev.dht.node.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 12's scenario as a user runs it: three nodes on one shared cluster file with {@code --replication-factor
 * 3}, a steady load of unique-key PUTs at 2/3 and GETs at 2/3 of acknowledged keys; the file grows to five and two
 * nodes start, then shrinks to three and the two extra nodes stop once they report idle. Every acknowledged key
 * reads back exactly, sampled throughout and in full after each step; no read is wrong at any moment.
 */
class ScaleUpDownIT {
    /** Generous: the machine is shared; the moves take seconds when it is not. */
    static final Duration MOVE_BOUND = Duration.ofMinutes(3);

    @TempDir
    Path dir;

    @Test
    void threeToFiveToThreeUnderLoadLosesNothing() throws Exception {
        try (ScalingCluster c = new ScalingCluster(dir, 5, i -> List.of("--replication-factor", "3"))) {
            long[] logStart = c.logs().lengths();
            try {
                run(c, null);
            } catch (Throwable t) {
                System.err.println("==== what the nodes logged:\n" + c.logs().since(logStart));
                throw t;
            }
        }
    }

    /**
     * The scenario; with {@code lagging} set, that node reads its own copy of the file, which catches up with the
     * shared one {@link LaggingMemberScaleIT#LAG} after each change (a kubelet that delivers the ConfigMap late).
     */
    static void run(ScalingCluster c, Lag lagging) throws Exception {
        c.setMembers(3);
        if (lagging != null) {
            c.giveOwnFile(lagging.node(), 3);
        }
        c.start(0, 1, 2);
        c.awaitIdle(List.of(0, 1, 2), 3, Duration.ofMinutes(1));
        try (QuorumLoad load = new QuorumLoad(c, 2, 50, 0, 1, 2)) {
            await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= 1500);

            // scale up: the file lists five, then the two new nodes start (the operator's order)
            c.setMembers(5);
            if (lagging != null) {
                lagging.catchUpLater(c, 5);
            }
            c.start(3, 4);
            load.via(0, 1, 2, 3, 4); // new nodes coordinate as soon as they run (503 until they know the state)
            c.awaitIdle(List.of(0, 1, 2, 3, 4), 5, MOVE_BOUND);
            if (lagging != null) {
                assertThat(lagging.awaitCaughtUp()).as("the lagging node learned the move (epoch 1) from its "
                        + "peers before its own file listed five").isGreaterThanOrEqualTo(1);
            }
            List<String> afterUp = load.checkAll(0, 1, 2, 3, 4);
            assertThat(afterUp).as("after 3 -> 5 (%s)", load.summary()).isEmpty();
            assertThat(load.wrongReads()).as("during 3 -> 5 (%s)", load.summary()).isEmpty();
            assertThat(moved(c, List.of(3, 4))).as("records streamed to the new nodes").isPositive();

            int before = load.acknowledged();
            await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= before + 500);

            // scale down: the file lists three; the two extra nodes stop once they report idle (the operator's
            // condition), and they keep coordinating meanwhile
            c.setMembers(3);
            if (lagging != null) {
                lagging.catchUpLater(c, 3);
            }
            c.awaitIdle(List.of(0, 1, 2, 3, 4), 3, MOVE_BOUND);
            for (int leaving : List.of(3, 4)) {
                assertThat(c.movement(leaving).get("member")).isEqualTo(false);
            }
            load.via(0, 1, 2);
            await().atMost(Duration.ofMinutes(1)).until(() -> List.of(3, 4).stream().allMatch(i ->
                    c.movement(i).get("cleanup") instanceof Map<?, ?> m && Boolean.FALSE.equals(m.get("pending"))));
            assertThat(c.metric(3, "dht_movement_cleanup_dropped_total")).as("a leaving node drops what it held")
                    .isPositive();
            c.stop(3);
            c.stop(4);
            if (lagging != null) {
                assertThat(lagging.awaitCaughtUp()).as("the lagging node learned the move (epoch 2) from its "
                        + "peers before its own file listed three").isGreaterThanOrEqualTo(2);
            }
            List<String> afterDown = load.checkAll(0, 1, 2);
            assertThat(afterDown).as("after 5 -> 3 (%s)", load.summary()).isEmpty();
            int last = load.acknowledged();
            await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= last + 300);
            load.close();
            assertThat(load.wrongReads()).as("during the whole run (%s)", load.summary()).isEmpty();
            assertThat(load.checkAll(0, 1, 2)).as("at the end (%s)", load.summary()).isEmpty();
            assertThat(load.readsRight()).as("reads happened throughout").isGreaterThan(1000);
            System.out.println("scale 3 -> 5 -> 3: " + load.summary());
        }
    }

    private static double moved(ScalingCluster c, List<Integer> nodes) {
        return nodes.stream().mapToDouble(i -> c.metric(i, "dht_movement_records_received_total")).sum();
    }

    /**
     * A node whose own copy of the file follows the shared one after a delay. When its file catches up, the epoch
     * the node was at just before is recorded: it shows whether it had learned the move from its peers.
     */
    record Lag(int node, Duration delay, java.util.concurrent.ScheduledExecutorService timer,
               java.util.concurrent.atomic.AtomicReference<java.util.concurrent.ScheduledFuture<Long>> pending) {

        static Lag of(int node, Duration delay) {
            return new Lag(node, delay, java.util.concurrent.Executors.newSingleThreadScheduledExecutor(),
                    new java.util.concurrent.atomic.AtomicReference<>());
        }

        void catchUpLater(ScalingCluster c, int n) {
            pending.set(timer.schedule(() -> {
                long epoch = ((Number) ((Map<?, ?>) c.movement(node).get("topology")).get("epoch")).longValue();
                c.setMembersOf(node, n);
                return epoch;
            }, delay.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
        }

        /** Waits for the catch-up; returns the node's epoch just before its file caught up. */
        long awaitCaughtUp() throws Exception {
            return pending.get().get(delay.toMillis() + 60_000, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }
}
