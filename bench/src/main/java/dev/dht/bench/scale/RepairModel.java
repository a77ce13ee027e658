package dev.dht.bench.scale;

import dev.dht.node.repair.RepairProbe;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Repair at one cluster size: the node's own {@code RepairRanges} for one member (its arcs, replica sets and the
 * sets it coordinates; build time and retained heap), and the bytes one round of the node's comparison protocol
 * exchanges for a given divergence, by simulating its descent (summaries of every coordinated span, split by the
 * node's FANOUT while a span differs and holds more than LEAF entries, then listings and the records themselves)
 * over those very spans with keys spread uniformly over the ring and the differing ones placed at random. Nothing
 * is stored: a member of {@code bytesPerMember} holds bytesPerMember / RECORD_BYTES copies.
 */
final class RepairModel {
    static final int RECORD_BYTES = 1024;
    static final int KEY_BYTES = 16;
    static final long[] DATA_PER_MEMBER = {1L << 30, 100L << 30, 1L << 40};
    static final double[] DIVERGENCE = {0, 1e-6, 1e-4, 1e-2};

    /**
     * @param bytes          sent and received by the coordinator, summed over the replica sets it coordinates
     * @param calls          per step (ARCS_PER_STEP arcs of one replica set) a summaries call and a done call per
     *                       peer, and the listing calls; the descent adds a summaries call per peer per level of a
     *                       step that differs
     * @param digestsScanned digest entries read by all replicas of those sets (each level re-reads its spans)
     */
    record Round(long dataPerMember, double divergence, double bytes, double calls, double digestsScanned) {}

    record Result(Cluster cluster, RepairProbe.Shape shape, double buildMs, long heapBytes, List<Round> rounds) {}

    private RepairModel() {}

    static Result measure(Cluster c) {
        int rf = Math.min(PlacementSim.RF, c.size());
        String self = c.url(0);
        long t0 = System.nanoTime();
        RepairProbe.build(self, c.members(), rf);
        double buildMs = (System.nanoTime() - t0) / 1e6;
        long before = usedAfterGc();
        RepairProbe probe = RepairProbe.build(self, c.members(), rf);
        long heap = usedAfterGc() - before;
        RepairProbe.Shape shape = probe.shape();
        long[] widths = probe.coordinatedSpanWidths();
        List<Round> rounds = new java.util.ArrayList<>();
        for (long data : DATA_PER_MEMBER) {
            for (double d : DIVERGENCE) {
                rounds.add(round(widths, probe.coordinatedGroupArcs(), c.size(), rf, data, d));
            }
        }
        return new Result(c, shape, buildMs, Math.max(0, heap), rounds);
    }

    static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** One round over the spans this member coordinates: the bytes it sends and receives, calls, entries read. */
    static Round round(long[] widths, int[] groupArcs, int n, int rf, long dataPerMember, double divergence) {
        double keys = (double) n * (dataPerMember / RECORD_BYTES) / rf; // distinct keys in the cluster
        SplittableRandom random = new SplittableRandom(55);
        Tally t = new Tally();
        int peers = rf - 1;
        for (int arcs : groupArcs) { // steps of ARCS_PER_STEP arcs, set by set: a summaries and a done call per peer
            t.calls += 2.0 * peers * Math.ceil((double) arcs / RepairProbe.ARCS_PER_STEP);
        }
        for (long w : widths) {
            double span = ((w >>> 11) + 1) * 0x1.0p-53; // fraction of the ring
            double entries = span * keys;
            t.bytes += peers * (RepairProbe.QUERY_BYTES + RepairProbe.SUMMARY_BYTES);
            t.scanned += rf * entries;
            int differing = count(entries * divergence, random);
            if (differing > 0) {
                descend(entries, differing, peers, rf, random, t);
            }
        }
        return new Round(dataPerMember, divergence, t.bytes, t.calls, t.scanned);
    }

    private static final class Tally {
        double bytes;
        double calls;
        double scanned;
    }

    /** A differing span of this many entries with this many differing ones: split, or list and send. */
    private static void descend(double entries, int differing, int peers, int rf, SplittableRandom random, Tally t) {
        if (entries <= RepairProbe.LEAF) {
            // listed by every replica (a call per SPANS_PER_CALL leaves), then the newest record goes to each
            // replica that lacks it: a fetch from one holder and a push to one other, about
            double listing = RepairProbe.QUERY_BYTES + 5 + entries * (KEY_BYTES + RepairProbe.DIGEST_BYTES);
            t.bytes += peers * listing + differing * 2.0 * RECORD_BYTES;
            t.calls += peers / (double) RepairProbe.SPANS_PER_CALL; // listings go SPANS_PER_CALL leaves a call
            return;
        }
        int[] parts = new int[RepairProbe.FANOUT];
        for (int i = 0; i < differing; i++) {
            parts[random.nextInt(RepairProbe.FANOUT)]++;
        }
        double child = entries / RepairProbe.FANOUT;
        t.bytes += RepairProbe.FANOUT * peers * (RepairProbe.QUERY_BYTES + RepairProbe.SUMMARY_BYTES);
        t.scanned += rf * entries;
        for (int p : parts) {
            if (p > 0) {
                descend(child, p, peers, rf, random, t);
            }
        }
    }

    /** Differing keys in a span: the mean, rounded at random (unbiased). */
    private static int count(double mean, SplittableRandom random) {
        int whole = (int) mean;
        return whole + (random.nextDouble() < mean - whole ? 1 : 0);
    }
}
