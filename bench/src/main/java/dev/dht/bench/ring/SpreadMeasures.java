package dev.dht.bench.ring;

import static dev.dht.bench.ring.SpreadReport.NAMESPACES;
import static dev.dht.bench.ring.SpreadReport.RF;

import dev.dht.bench.ring.SpreadReport.CostRow;
import dev.dht.bench.ring.SpreadReport.KeySet;
import dev.dht.bench.ring.SpreadReport.LookupRow;
import dev.dht.bench.ring.SpreadReport.ManyRow;
import dev.dht.bench.ring.SpreadReport.MoveRow;
import dev.dht.bench.ring.SpreadReport.Naming;
import dev.dht.bench.ring.SpreadReport.Options;
import dev.dht.bench.ring.SpreadReport.Spread;
import dev.dht.bench.ring.SpreadReport.SpreadRow;
import dev.dht.node.ring.Ring;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToDoubleFunction;

/**
 * How {@link SpreadReport} measures each figure (spread, movement on a join, exact ownership, ring cost, lookup
 * times): apart from the report's options, rows and order of work, so that each reads on its own.
 */
final class SpreadMeasures {
    private SpreadMeasures() {}

    /**
     * Abstracts the two placements for the (not time-critical) spread and movement passes: the members by index, and
     * the replicas of a key (their indexes, into out).
     */
    record Placement(int size, IntFunction<String> members, Replicas replicas) {
        interface Replicas {
            void of(long keyHash, int from, int[] out);
        }

        String member(int index) {
            return members.apply(index);
        }

        void replicas(long keyHash, int from, int[] out) {
            replicas.of(keyHash, from, out);
        }
    }

    static Placement ring(Ring ring) {
        return new Placement(ring.size(), ring::member, ring::replicaIndexes);
    }

    static Placement rendezvous(RendezvousPlacement rendezvous) {
        long[] scores = new long[RF];
        return new Placement(
                rendezvous.size(),
                rendezvous::member,
                (keyHash, from, out) -> rendezvous.replicaIndexes(keyHash, from, out, scores));
    }

    static void measureSpread(
            Options options,
            List<KeySet> keySets,
            String placement,
            int vnodes,
            Function<List<String>, Placement> build,
            List<SpreadRow> rows) {
        int[] out = new int[RF];
        for (Naming naming : Naming.values()) {
            for (int n = options.minNodes(); n <= options.maxNodes(); n++) {
                Placement p = build.apply(naming.members(n));
                for (KeySet keySet : keySets) {
                    long[] primaries = new long[n];
                    long[] copies = new long[n];
                    for (long hash : keySet.hashes()) {
                        p.replicas(hash, RF, out);
                        primaries[out[0]]++;
                        for (int r = 0; r < RF; r++) {
                            copies[out[r]]++;
                        }
                    }
                    rows.add(new SpreadRow(
                            placement, vnodes, naming, keySet.name(), n, Spread.of(primaries), Spread.of(copies)));
                }
            }
        }
    }

    /**
     * The same pod names in {@value #NAMESPACES} namespaces give as many independent rings per size: the spread one
     * fixed name set shows is one draw, this is the distribution a user's cluster is drawn from.
     */
    static ManyRow measureManyClusters(Options options, int vnodes) {
        List<Spread> primaries = new ArrayList<>();
        List<Spread> copies = new ArrayList<>();
        for (int ns = 0; ns < NAMESPACES; ns++) {
            for (int n = options.minNodes(); n <= options.maxNodes(); n++) {
                List<String> members = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    members.add("http://dht-" + i + ".dht-headless.team-" + ns + ".svc.cluster.local:8080");
                }
                Ring ring = new Ring(members, vnodes);
                primaries.add(Spread.ofShares(ring.ownership(1)));
                if (n > RF) { // with n = RF every node holds every key: perfectly even, says nothing
                    copies.add(Spread.ofShares(ring.ownership(RF)));
                }
            }
        }
        return new ManyRow(
                vnodes,
                primaries.size(),
                quantile(primaries, Spread::sd, 0.5),
                quantile(primaries, Spread::max, 0.95),
                quantile(primaries, Spread::max, 1.0),
                1 - quantile(primaries, s -> 1 - s.min(), 1.0),
                quantile(copies, Spread::sd, 0.5),
                quantile(copies, Spread::max, 0.95),
                quantile(copies, Spread::max, 1.0),
                1 - quantile(copies, s -> 1 - s.min(), 1.0));
    }

    private static double quantile(List<Spread> spreads, ToDoubleFunction<Spread> value, double q) {
        double[] values = spreads.stream().mapToDouble(value).sorted().toArray();
        return values[(int) Math.min(values.length - 1, Math.ceil(q * values.length) - 1)];
    }

    /** Grows a StatefulSet-named cluster one node at a time and counts what moves. */
    static void measureMoves(
            Options options,
            KeySet keySet,
            String placement,
            int vnodes,
            Function<List<String>, Placement> build,
            List<MoveRow> rows) {
        int[] before = new int[RF];
        int[] after = new int[RF];
        for (int n = options.minNodes(); n <= options.maxNodes(); n++) {
            Placement small = build.apply(Naming.K8S.members(n));
            Placement large = build.apply(Naming.K8S.members(n + 1));
            int[] renamed = new int[n]; // index in small -> index of the same member in large
            for (int i = 0; i < n; i++) {
                renamed[i] = indexOf(large, small.member(i));
            }
            int joined = indexOf(large, Naming.K8S.members(n + 1).get(n));
            long primariesMoved = 0;
            long primariesToOld = 0;
            long copiesMoved = 0;
            long copiesToOld = 0;
            long listsChanged = 0;
            for (long hash : keySet.hashes()) {
                small.replicas(hash, RF, before);
                large.replicas(hash, RF, after);
                if (renamed[before[0]] != after[0]) {
                    primariesMoved++;
                    if (after[0] != joined) {
                        primariesToOld++;
                    }
                }
                boolean changed = false;
                for (int r = 0; r < RF; r++) {
                    boolean held = false;
                    for (int q = 0; q < RF; q++) {
                        held |= renamed[before[q]] == after[r];
                    }
                    if (!held) {
                        copiesMoved++;
                        changed = true;
                        if (after[r] != joined) {
                            copiesToOld++;
                        }
                    }
                }
                if (changed) {
                    listsChanged++;
                }
            }
            double keys = keySet.hashes().length;
            rows.add(new MoveRow(
                    placement,
                    vnodes,
                    n,
                    n + 1,
                    primariesMoved / keys,
                    primariesToOld,
                    copiesMoved / (keys * RF),
                    copiesToOld,
                    listsChanged / keys));
        }
    }

    private static int indexOf(Placement placement, String member) {
        for (int i = 0; i < placement.size(); i++) {
            if (placement.member(i).equals(member)) {
                return i;
            }
        }
        throw new IllegalStateException(member + " is not placed");
    }

    static CostRow measureCost(Options options, int vnodes, byte[][] keys) {
        List<String> members = Naming.K8S.members(options.maxNodes());
        double buildMs = Timing.medianBuildMs(() -> new Ring(members, vnodes));
        Ring ring = new Ring(members, vnodes);
        int[] out = new int[RF];
        double ns = Timing.nsPerOp(() -> ringIndexes(ring, keys, out), keys.length, options.roundMs());
        return new CostRow(vnodes, members.size(), ring.approximateBytes(), buildMs, ns);
    }

    static LookupRow measureLookups(Options options, int nodes, byte[][] keys) {
        List<String> members = Naming.K8S.members(nodes);
        Ring ring = new Ring(members);
        RendezvousPlacement rendezvous = new RendezvousPlacement(members);
        int[] out = new int[RF];
        long[] scores = new long[RF];
        int round = options.roundMs();
        int from = Math.min(RF, nodes);
        return new LookupRow(
                nodes,
                Timing.nsPerOp(() -> hashes(keys), keys.length, round),
                Timing.nsPerOp(() -> ringPrimary(ring, keys), keys.length, round),
                Timing.nsPerOp(() -> ringIndexes(ring, keys, out), keys.length, round),
                Timing.nsPerOp(() -> ringList(ring, keys, from), keys.length, round),
                Timing.nsPerOp(() -> rendezvousPrimary(rendezvous, keys), keys.length, round),
                Timing.nsPerOp(() -> rendezvousIndexes(rendezvous, keys, from, out, scores), keys.length, round));
    }

    // One pass over the keys per variant, each its own method: every call site inside stays monomorphic, and the
    // harness calls a pass thousands of times, so the JIT compiles it as a normal method (not only on-stack).

    private static long hashes(byte[][] keys) {
        long acc = 0;
        for (byte[] key : keys) {
            acc += Ring.keyHash(key);
        }
        return acc;
    }

    private static long ringPrimary(Ring ring, byte[][] keys) {
        long acc = 0;
        for (byte[] key : keys) {
            acc += ring.primaryFor(key).length();
        }
        return acc;
    }

    static long ringIndexes(Ring ring, byte[][] keys, int[] out) {
        long acc = 0;
        int from = Math.min(RF, ring.size());
        for (byte[] key : keys) {
            ring.replicaIndexes(Ring.keyHash(key), from, out);
            acc += out[from - 1];
        }
        return acc;
    }

    private static long ringList(Ring ring, byte[][] keys, int from) {
        long acc = 0;
        for (byte[] key : keys) {
            acc += ring.replicasFor(key, from).get(from - 1).length();
        }
        return acc;
    }

    private static long rendezvousPrimary(RendezvousPlacement rendezvous, byte[][] keys) {
        long acc = 0;
        for (byte[] key : keys) {
            acc += rendezvous.primaryIndex(Ring.keyHash(key));
        }
        return acc;
    }

    private static long rendezvousIndexes(
            RendezvousPlacement rendezvous, byte[][] keys, int from, int[] out, long[] scores) {
        long acc = 0;
        for (byte[] key : keys) {
            rendezvous.replicaIndexes(Ring.keyHash(key), from, out, scores);
            acc += out[from - 1];
        }
        return acc;
    }
}
