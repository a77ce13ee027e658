package dev.dht.bench.scale;

import dev.dht.bench.ring.Timing;
import dev.dht.node.movement.MovePlans;
import dev.dht.node.ring.Ring;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Placement and movement at one cluster size, on the node's own {@link Ring} and move plan: the ring's build time,
 * heap and lookup cost; each member's exact share of the key space; and for one member joining and one leaving, the
 * exact fraction of the copies that move and the largest share any member sends or receives, computed arc by arc
 * (every key of an arc moves alike, so weighting each arc by its length is exact, no key sampling), and what the
 * plan costs per key.
 */
final class PlacementSim {
    static final int RF = 3;

    /**
     * @param movedFraction  the fraction of all copies (keys x RF) whose holder set gains a member: ideal 1/N
     * @param sendsPerCopy   records sent per copy that moved: every holder in S sends (RF when all are up)
     * @param maxSent        the busiest sender's records sent, relative to its own copies before the move
     * @param maxReceived    the busiest receiver's records received, relative to its own copies after the move
     * @param planNsPerKey   one sender's plan for one key (hash included)
     */
    record Move(
            String kind,
            int from,
            int to,
            double movedFraction,
            double ideal,
            double sendsPerCopy,
            double maxSent,
            double maxReceived,
            double planNsPerKey) {}

    record Result(
            Cluster cluster,
            double buildMs,
            long ringBytes,
            double lookupNs,
            double maxShareOverMean,
            double minShareOverMean,
            Move join,
            Move leave) {}

    private PlacementSim() {}

    static Result measure(Cluster c, byte[][] keys, int roundMs) {
        List<String> urls = c.urls();
        Map<String, String> racks = c.rackMap();
        double buildMs = Timing.medianBuildMs(() -> new Ring(urls, racks));
        Ring ring = new Ring(urls, racks);
        int from = Math.min(RF, ring.size());
        int[] out = new int[from];
        double lookupNs = Timing.nsPerOp(() -> lookups(ring, keys, from, out), keys.length, roundMs);
        double[] share = ring.ownership(from);
        double mean = (double) from / ring.size();
        double max = 0;
        double min = Double.MAX_VALUE;
        for (double s : share) {
            max = Math.max(max, s);
            min = Math.min(min, s);
        }
        Move join = move("join", ring, new Ring(c.grown().urls(), c.grown().rackMap()), keys, roundMs);
        Move leave = c.size() < 2
                ? null
                : move("leave", ring, new Ring(c.shrunk().urls(), c.shrunk().rackMap()), keys, roundMs);
        return new Result(c, buildMs, ring.approximateBytes(), lookupNs, max / mean, min / mean, join, leave);
    }

    private static long lookups(Ring ring, byte[][] keys, int from, int[] out) {
        long acc = 0;
        for (byte[] key : keys) {
            ring.replicaIndexes(Ring.keyHash(key), from, out);
            acc += out[from - 1];
        }
        return acc;
    }

    /**
     * A move from s to t at RF 3 (or the set's size): every member of S that holds a copy runs its plan. The finer
     * of the two rings (the larger set's: its points include the smaller set's) cuts the space into pieces on which
     * both rings' lists are constant; each piece counts by its length.
     */
    static Move move(String kind, Ring s, Ring t, byte[][] keys, int roundMs) {
        int rfS = Math.min(RF, s.size());
        int rfT = Math.min(RF, t.size());
        MovePlans[] plans = new MovePlans[s.size()];
        for (int i = 0; i < s.size(); i++) {
            plans[i] = MovePlans.of(s, t, rfT, s.member(i));
        }
        int[] tIndexOfS = new int[s.size()];
        for (int i = 0; i < s.size(); i++) {
            tIndexOfS[i] = t.indexOf(s.member(i));
        }
        Ring fine = t.size() >= s.size() ? t : s;
        double[] sent = new double[s.size()];
        double[] received = new double[t.size()];
        double moved = 0;
        double sends = 0;
        int[] holders = new int[rfS];
        int[] targets = new int[t.size()];
        int[] tList = new int[rfT];
        int n = fine.arcCount();
        for (int a = 0; a < n; a++) {
            long end = fine.arcEnd(a);
            long length = end - fine.arcEnd(a == 0 ? n - 1 : a - 1);
            double weight = n == 1 ? 1.0 : (length >>> 11) * 0x1.0p-53;
            s.replicaIndexes(end, rfS, holders);
            boolean[] gets = new boolean[t.size()];
            for (int h : holders) {
                int k = plans[h].targets(end, targets);
                for (int i = 0; i < k; i++) {
                    gets[targets[i]] = true;
                    received[targets[i]] += weight;
                }
                sent[h] += k * weight;
                sends += k * weight;
            }
            t.replicaIndexes(end, rfT, tList);
            for (int m : tList) {
                if (gets[m]) {
                    moved += weight;
                }
            }
        }
        double copiesS = (double) rfS / s.size(); // each member's share of the copies before, and after
        double copiesT = (double) rfT / t.size();
        double maxSent = 0;
        for (double x : sent) {
            maxSent = Math.max(maxSent, x / copiesS);
        }
        double maxReceived = 0;
        for (double x : received) {
            maxReceived = Math.max(maxReceived, x / copiesT);
        }
        MovePlans one = plans[0];
        int[] scratch = new int[t.size()];
        double planNs = Timing.nsPerOp(() -> plan(one, keys, scratch), keys.length, roundMs);
        double ideal = 1.0 / Math.max(s.size(), t.size());
        return new Move(
                kind,
                s.size(),
                t.size(),
                moved / rfT,
                ideal,
                moved == 0 ? 0 : sends / moved,
                maxSent,
                maxReceived,
                planNs);
    }

    private static long plan(MovePlans plan, byte[][] keys, int[] out) {
        long acc = 0;
        for (byte[] key : keys) {
            acc += plan.targets(key, out);
        }
        return acc;
    }

    /** Hex ids as the course's tests make them, seeded. */
    static byte[][] keys(int count) {
        java.util.Random random = new java.util.Random(20_240_917L);
        byte[][] out = new byte[count][];
        for (int i = 0; i < count; i++) {
            out[i] = Long.toHexString(random.nextLong()).getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }
}
