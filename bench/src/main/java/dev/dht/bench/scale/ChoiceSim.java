package dev.dht.bench.scale;

import dev.dht.bench.ring.Timing;
import dev.dht.node.replication.choice.PeerHealth;
import dev.dht.node.replication.choice.ReplicaChoice;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * The replica-choice state at N peers, on the node's own {@link ReplicaChoice} and {@link PeerHealth}: the heap
 * one coordinator keeps for its peers (every peer called, with enough samples for its quantiles), the cost of one
 * quorum read's bookkeeping (order the key's other replicas by state, send to two, record both answers) when the
 * key's replicas are any of N, and the refresh of the fastest median, the only step that visits every peer (at
 * most once per 50 ms, on an answer).
 */
final class ChoiceSim {
    record Result(int members, long heapBytesPerPeer, long heapBytes, double readNs, double refreshNs) {}

    private ChoiceSim() {}

    static Result measure(int n, int roundMs) {
        int peers = Math.max(1, n - 1);
        String[] urls = new String[peers];
        for (int i = 0; i < peers; i++) {
            urls[i] = "http://dht-" + (i + 1) + Cluster.DOMAIN;
        }
        // Heap: enough copies that a few hundred KB of noise is small against them.
        int copies = Math.max(4, 40_000 / peers);
        long before = RepairModel.usedAfterGc();
        ReplicaChoice[] kept = new ReplicaChoice[copies];
        for (int c = 0; c < copies; c++) {
            kept[c] = warmed(urls);
        }
        long heap = Math.max(0, RepairModel.usedAfterGc() - before);
        long perPeer = heap / ((long) copies * peers);
        if (kept[copies - 1].peers().size() != peers) {
            throw new IllegalStateException("every peer should have its state");
        }

        ReplicaChoice choice = warmed(urls);
        SplittableRandom random = new SplittableRandom(55);
        int[] order = new int[3];
        String[] replicas = new String[3];
        long[] clock = {System.nanoTime()};
        // One read: the other replicas ordered by state, two asked, both answering in about 1 ms.
        double readNs = Timing.nsPerOp(
                () -> {
                    for (int i = 0; i < 3; i++) {
                        replicas[i] = urls[random.nextInt(peers)];
                        order[i] = i;
                    }
                    long now = clock[0] += 10_000;
                    choice.prefer(replicas, order, 0, now);
                    long acc = 0;
                    for (int i = 0; i < 2; i++) {
                        PeerHealth p = choice.peer(replicas[order[i]]);
                        long sent = p.sent(now);
                        p.answered(sent, now + 1_000_000, true, false);
                        acc += order[i];
                    }
                    return acc;
                },
                1,
                roundMs);
        // The refresh: an answer 50 ms after the last refresh visits every peer's median.
        double refreshNs = Timing.nsPerOp(
                () -> {
                    long now = clock[0] += 60_000_000L;
                    PeerHealth p = choice.peer(urls[0]);
                    p.answered(p.sent(now), now + 1_000_000, true, false);
                    return p.medianNanos();
                },
                1,
                roundMs);
        return new Result(n, perPeer, perPeer * peers, readNs, refreshNs);
    }

    /** A coordinator's choice state after it called every peer enough for their quantiles. */
    private static ReplicaChoice warmed(String[] urls) {
        ReplicaChoice choice = new ReplicaChoice(Duration.ofSeconds(1));
        long now = 1;
        for (String url : urls) {
            PeerHealth p = choice.peer(url);
            for (int i = 0; i < 20; i++) {
                long sent = p.sent(now);
                p.answered(sent, now + 1_000_000, true, false);
                now += 1000;
            }
        }
        return choice;
    }
}
