package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.support.ReplicaCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12's scenario as a user runs it: three nodes on one shared cluster file with {@code --replication-factor
 * 3}, a steady load of unique-key PUTs at 2/3 and GETs at 2/3 of acknowledged keys; the file grows to five and two
 * nodes start, then shrinks to three and the two extra nodes stop once they report idle. After each step every
 * acknowledged key is on each of its replicas by the new ring, read from each replica alone before any quorum read,
 * and each receiver got at least its share of the records streamed; every acknowledged key then reads back exactly
 * at quorum, sampled throughout and in full after each step; no read is wrong at any moment.
 */
class ScaleUpDownIT {
    /** Generous: the machine is shared; the moves take seconds when it is not. */
    static final Duration MOVE_BOUND = Duration.ofMinutes(3);
    /** How long a copy may lag behind its acknowledgement (the third replica's write, or a hint, in flight). */
    static final Duration COPIES_BOUND = Duration.ofSeconds(30);

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
            Map<String, byte[]> beforeUp = load.acknowledgedKeys();
            c.setMembers(5);
            if (lagging != null) {
                lagging.catchUpLater(c, 5);
            }
            c.start(3, 4);
            load.via(0, 1, 2, 3, 4); // new nodes coordinate as soon as they run (503 until they know the state)
            c.awaitIdle(List.of(0, 1, 2, 3, 4), 5, MOVE_BOUND);
            if (lagging != null) {
                assertThat(lagging.awaitCaughtUp())
                        .as("the lagging node learned the move (epoch 1) from its "
                                + "peers before its own file listed five")
                        .isGreaterThanOrEqualTo(1);
            }
            Map<String, byte[]> heldAfterUp = assertOnEveryReplica(c, load, 5, "after 3 -> 5");
            assertStreamed(c, beforeUp, 3, 5, List.of(3, 4), new double[5]);
            List<String> afterUp = load.checkAll(0, 1, 2, 3, 4);
            assertThat(afterUp).as("after 3 -> 5 (%s)", load.summary()).isEmpty();
            assertThat(load.wrongReads())
                    .as("during 3 -> 5 (%s)", load.summary())
                    .isEmpty();

            int before = load.acknowledged();
            await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= before + 500);

            // scale down: the file lists three; the two extra nodes stop once they report idle (the operator's
            // condition), and they keep coordinating meanwhile
            double[] receivedBeforeDown = received(c, 5);
            Map<String, byte[]> beforeDown = load.acknowledgedKeys();
            c.setMembers(3);
            if (lagging != null) {
                lagging.catchUpLater(c, 3);
            }
            c.awaitIdle(List.of(0, 1, 2, 3, 4), 3, MOVE_BOUND);
            for (int leaving : List.of(3, 4)) {
                assertThat(c.movement(leaving).get("member")).isEqualTo(false);
            }
            load.via(0, 1, 2);
            await().atMost(Duration.ofMinutes(1))
                    .until(() -> List.of(3, 4).stream()
                            .allMatch(i -> c.movement(i).get("cleanup") instanceof Map<?, ?> m
                                    && Boolean.FALSE.equals(m.get("pending"))));
            ReplicaCheck held = ReplicaCheck.onUrls(heldAfterUp, c.firstMembers(5), 3);
            for (int leaving : List.of(3, 4)) {
                assertThat(c.metric(leaving, "dht_movement_cleanup_dropped_total"))
                        .as(
                                "node %d, leaving, drops at least the %d copies it was shown to hold after 3 -> 5",
                                leaving, held.keysOn(c.url(leaving)))
                        .isGreaterThanOrEqualTo(held.keysOn(c.url(leaving)));
            }
            c.stop(3);
            c.stop(4);
            if (lagging != null) {
                assertThat(lagging.awaitCaughtUp())
                        .as("the lagging node learned the move (epoch 2) from its "
                                + "peers before its own file listed three")
                        .isGreaterThanOrEqualTo(2);
            }
            assertOnEveryReplica(c, load, 3, "after 5 -> 3");
            assertStreamed(c, beforeDown, 5, 3, List.of(0, 1, 2), receivedBeforeDown);
            List<String> afterDown = load.checkAll(0, 1, 2);
            assertThat(afterDown).as("after 5 -> 3 (%s)", load.summary()).isEmpty();
            int last = load.acknowledged();
            await().atMost(Duration.ofMinutes(1)).until(() -> load.acknowledged() >= last + 300);
            load.close();
            assertThat(load.wrongReads())
                    .as("during the whole run (%s)", load.summary())
                    .isEmpty();
            assertOnEveryReplica(c, load, 3, "at the end");
            assertThat(load.checkAll(0, 1, 2))
                    .as("at the end (%s)", load.summary())
                    .isEmpty();
            assertThat(load.readsRight()).as("reads happened throughout").isGreaterThan(1000);
            System.out.println("scale 3 -> 5 -> 3: " + load.summary());
        }
    }

    /**
     * Every key the load got acknowledged so far is on each of its replicas among the first n, asked of each
     * replica alone (no quorum read, no repair); returns the keys checked.
     */
    static Map<String, byte[]> assertOnEveryReplica(ScalingCluster c, QuorumLoad load, int n, String when)
            throws Exception {
        Map<String, byte[]> acked = load.acknowledgedKeys();
        List<String> missing = ReplicaCheck.onUrls(acked, c.firstMembers(n), 3).missing(COPIES_BOUND);
        assertThat(missing)
                .as(
                        "%s: each of the %d acknowledged keys on each of its 3 replicas, read locally (%s)",
                        when, acked.size(), load.summary())
                .isEmpty();
        return acked;
    }

    /**
     * The move from the first {@code fromN} to the first {@code toN} streamed to each receiver at least two copies
     * of every key acknowledged before it that the receiver had to get (a replica by the new ring, not one by the
     * old): at least two replicas in S held each such key, and each sends it.
     *
     * @param receivedBefore each node's dht_movement_records_received_total before the move (by node index)
     */
    static void assertStreamed(
            ScalingCluster c,
            Map<String, byte[]> ackedBefore,
            int fromN,
            int toN,
            List<Integer> receivers,
            double[] receivedBefore) {
        ReplicaCheck check = ReplicaCheck.onUrls(ackedBefore, c.firstMembers(toN), 3);
        for (int n : receivers) {
            int due = check.newCopiesOn(c.url(n), c.firstMembers(fromN), 3);
            assertThat(due)
                    .as("node %d has keys to receive in %d -> %d", n, fromN, toN)
                    .isPositive();
            assertThat(c.metric(n, "dht_movement_records_received_total") - receivedBefore[n])
                    .as(
                            "records streamed to node %d in %d -> %d: two copies of each of the %d keys acknowledged "
                                    + "before the move that it had to get",
                            n, fromN, toN, due)
                    .isGreaterThanOrEqualTo(2.0 * due);
        }
    }

    private static double[] received(ScalingCluster c, int n) {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = c.metric(i, "dht_movement_records_received_total");
        }
        return out;
    }

    /**
     * A node whose own copy of the file follows the shared one after a delay. When its file catches up, the epoch
     * the node was at just before is recorded: it shows whether it had learned the move from its peers.
     */
    record Lag(
            int node,
            Duration delay,
            java.util.concurrent.ScheduledExecutorService timer,
            java.util.concurrent.atomic.AtomicReference<java.util.concurrent.ScheduledFuture<Long>> pending) {

        static Lag of(int node, Duration delay) {
            return new Lag(
                    node,
                    delay,
                    java.util.concurrent.Executors.newSingleThreadScheduledExecutor(),
                    new java.util.concurrent.atomic.AtomicReference<>());
        }

        void catchUpLater(ScalingCluster c, int n) {
            pending.set(timer.schedule(
                    () -> {
                        long epoch = ((Number) ((Map<?, ?>) c.movement(node).get("topology")).get("epoch")).longValue();
                        c.setMembersOf(node, n);
                        return epoch;
                    },
                    delay.toMillis(),
                    java.util.concurrent.TimeUnit.MILLISECONDS));
        }

        /** Waits for the catch-up; returns the node's epoch just before its file caught up. */
        long awaitCaughtUp() throws Exception {
            return pending.get().get(delay.toMillis() + 60_000, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }
}
