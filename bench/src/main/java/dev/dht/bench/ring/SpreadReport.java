package dev.dht.bench.ring;

import dev.dht.node.ring.Ring;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToDoubleFunction;

/**
 * Measures placement and writes the figures docs/placement.md quotes: how evenly the ring spreads 1M keys over
 * 3..10 nodes for several vnode counts (primaries and replica sets at RF 3), how many keys move when a node joins,
 * what a ring costs (memory, build time, lookup ns), the same for rendezvous hashing, and the load per member with
 * racks of equal and unequal size ({@link RackSpread}).
 *
 * <pre>
 * java -cp bench/target/dht-bench.jar:node/target/dht-node.jar dev.dht.bench.ring.SpreadReport [--keys 1000000] [--nodes 3..10]
 *      [--vnodes 1,16,64,128,256,512,1024,2048,4096] [--lookup-nodes 3,10,32,100] [--round-ms 20]
 *      [--out docs/benchmarks]
 * </pre>
 * With {@code --out} it writes ring.md and ring.json there; otherwise it prints the markdown. Spread and movement
 * are deterministic (fixed seeds, fixed names); lookup times depend on the machine and its load.
 */
public final class SpreadReport {
    static final int RF = 3;
    private static final long KEY_SEED = 20_240_917L;
    static final int LOOKUP_KEYS = 4096; // hot in cache: measures the ring, not memory fetches of keys
    static final int NAMESPACES = 50;
    static final int SWEEPS = 3;

    private SpreadReport() {}

    record Options(int keys, int minNodes, int maxNodes, int[] vnodes, int[] lookupNodes, int roundMs, Path out) {
        static Options parse(String[] args) {
            int keys = 1_000_000;
            int minNodes = 3;
            int maxNodes = 10;
            int[] vnodes = {1, 16, 64, 128, 256, 512, 1024, 2048, 4096};
            int[] lookupNodes = {3, 10, 32, 100};
            int roundMs = 20;
            Path out = null;
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--keys" -> keys = Integer.parseInt(require(args[i], value));
                    case "--nodes" -> {
                        String[] range = require(args[i], value).split("\\.\\.");
                        minNodes = Integer.parseInt(range[0]);
                        maxNodes = Integer.parseInt(range[range.length - 1]);
                    }
                    case "--vnodes" -> vnodes = ints(require(args[i], value));
                    case "--lookup-nodes" -> lookupNodes = ints(require(args[i], value));
                    case "--round-ms" -> roundMs = Integer.parseInt(require(args[i], value));
                    case "--out" -> out = Path.of(require(args[i], value));
                    default ->
                        throw new IllegalArgumentException("unknown option " + args[i]
                                + " (known: --keys --nodes --vnodes --lookup-nodes --round-ms --out)");
                }
                i++;
            }
            if (minNodes < RF || maxNodes < minNodes || keys < 1 || roundMs < 1) {
                throw new IllegalArgumentException(
                        "need keys >= 1, round-ms >= 1 and " + RF + " <= min nodes <= max nodes");
            }
            return new Options(keys, minNodes, maxNodes, vnodes, lookupNodes, roundMs, out);
        }

        private static String require(String option, String value) {
            if (value == null) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return value;
        }

        private static int[] ints(String list) {
            return Arrays.stream(list.split(","))
                    .mapToInt(s -> Integer.parseInt(s.trim()))
                    .toArray();
        }
    }

    /** The member names a cluster of n nodes gets: a StatefulSet behind its headless Service, or local ports. */
    enum Naming {
        K8S(i -> "http://dht-" + i + ".dht-headless.default.svc.cluster.local:8080"),
        LOCAL(i -> "http://localhost:" + (8080 + i));

        private final IntFunction<String> name;

        Naming(IntFunction<String> name) {
            this.name = name;
        }

        List<String> members(int n) {
            List<String> members = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                members.add(name.apply(i));
            }
            return members;
        }

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    record KeySet(String name, String description, byte[][] keys, long[] hashes) {
        static KeySet of(String name, String description, IntFunction<String> key, int count) {
            byte[][] keys = new byte[count][];
            long[] hashes = new long[count];
            for (int i = 0; i < count; i++) {
                keys[i] = key.apply(i).getBytes(StandardCharsets.UTF_8);
                hashes[i] = Ring.keyHash(keys[i]);
            }
            return new KeySet(name, description, keys, hashes);
        }
    }

    /** Per-node load relative to the mean: the lightest and heaviest node, and the standard deviation. */
    record Spread(double min, double max, double sd) {
        static Spread of(long[] counts) {
            double mean = Arrays.stream(counts).average().orElseThrow();
            double var = Arrays.stream(counts)
                            .mapToDouble(c -> (c - mean) * (c - mean))
                            .sum()
                    / counts.length;
            long min = Arrays.stream(counts).min().orElseThrow();
            long max = Arrays.stream(counts).max().orElseThrow();
            return new Spread(min / mean, max / mean, Math.sqrt(var) / mean);
        }

        static Spread ofShares(double[] shares) {
            long[] scaled = new long[shares.length];
            for (int i = 0; i < shares.length; i++) {
                scaled[i] = Math.round(shares[i] * 1e12);
            }
            return of(scaled);
        }

        Spread worst(Spread other) {
            return new Spread(Math.min(min, other.min), Math.max(max, other.max), Math.max(sd, other.sd));
        }
    }

    /** vnodes = 0 stands for rendezvous. */
    record SpreadRow(
            String placement, int vnodes, Naming naming, String keySet, int nodes, Spread primaries, Spread rf3) {}

    record MoveRow(
            String placement,
            int vnodes,
            int from,
            int to,
            double primariesMoved,
            long primariesToOldNodes,
            double copiesMoved,
            long copiesToOldNodes,
            double listsChanged) {
        double ideal() {
            return 1.0 / to;
        }
    }

    record CostRow(int vnodes, int nodes, long bytes, double buildMs, double lookupNs) {
        static CostRow fastest(CostRow a, CostRow b) {
            return new CostRow(
                    a.vnodes, a.nodes, a.bytes, Math.min(a.buildMs, b.buildMs), Math.min(a.lookupNs, b.lookupNs));
        }
    }

    /** Exact ownership over many clusters (namespaces x sizes) for one vnode count: the typical and the worst case. */
    record ManyRow(
            int vnodes,
            int clusters,
            double medianSd,
            double p95Max,
            double worstMax,
            double worstMin,
            double rf3MedianSd,
            double rf3P95Max,
            double rf3WorstMax,
            double rf3WorstMin) {}

    record LookupRow(
            int nodes,
            double hashNs,
            double ringPrimaryNs,
            double ringIndexesNs,
            double ringListNs,
            double rendezvousPrimaryNs,
            double rendezvousIndexesNs) {
        static LookupRow fastest(LookupRow a, LookupRow b) {
            return new LookupRow(
                    a.nodes,
                    Math.min(a.hashNs, b.hashNs),
                    Math.min(a.ringPrimaryNs, b.ringPrimaryNs),
                    Math.min(a.ringIndexesNs, b.ringIndexesNs),
                    Math.min(a.ringListNs, b.ringListNs),
                    Math.min(a.rendezvousPrimaryNs, b.rendezvousPrimaryNs),
                    Math.min(a.rendezvousIndexesNs, b.rendezvousIndexesNs));
        }
    }

    /** Abstracts the two placements for the (not time-critical) spread and movement passes. */
    private interface Placement {
        int size();

        String member(int index);

        void replicas(long keyHash, int from, int[] out);
    }

    private static Placement ring(Ring ring) {
        return new Placement() {
            public int size() {
                return ring.size();
            }

            public String member(int index) {
                return ring.member(index);
            }

            public void replicas(long keyHash, int from, int[] out) {
                ring.replicaIndexes(keyHash, from, out);
            }
        };
    }

    private static Placement rendezvous(RendezvousPlacement rendezvous) {
        long[] scores = new long[RF];
        return new Placement() {
            public int size() {
                return rendezvous.size();
            }

            public String member(int index) {
                return rendezvous.member(index);
            }

            public void replicas(long keyHash, int from, int[] out) {
                rendezvous.replicaIndexes(keyHash, from, out, scores);
            }
        };
    }

    public static void main(String[] args) throws IOException {
        Options options = Options.parse(args);
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        long started = System.nanoTime();
        List<KeySet> keySets = List.of(
                KeySet.of(
                        "hex",
                        "`Long.toHexString(random.nextLong())`, seeded (the course tests' ids)",
                        keyGenerator(),
                        options.keys()),
                KeySet.of("seq", "`\"key\" + i` for i = 0, 1, 2, ...", i -> "key" + i, options.keys()));
        log("keys ready");

        List<SpreadRow> spread = new ArrayList<>();
        List<MoveRow> moves = new ArrayList<>();
        for (int vnodes : options.vnodes()) {
            measureSpread(options, keySets, "ring", vnodes, members -> ring(new Ring(members, vnodes)), spread);
            measureMoves(options, keySets.get(0), "ring", vnodes, members -> ring(new Ring(members, vnodes)), moves);
            log("vnodes " + vnodes + " measured");
        }
        measureSpread(
                options, keySets, "rendezvous", 0, members -> rendezvous(new RendezvousPlacement(members)), spread);
        measureMoves(
                options,
                keySets.get(0),
                "rendezvous",
                0,
                members -> rendezvous(new RendezvousPlacement(members)),
                moves);
        log("rendezvous measured");

        List<ManyRow> many = new ArrayList<>();
        for (int vnodes : options.vnodes()) {
            many.add(measureManyClusters(options, vnodes));
        }
        log("exact ownership over " + NAMESPACES + " namespaces measured");

        byte[][] lookupKeys = Arrays.copyOf(keySets.get(0).keys(), Math.min(LOOKUP_KEYS, options.keys()));
        // Timings are taken in SWEEPS passes over every configuration, keeping each one's fastest: a burst of load
        // from other processes then spoils one pass of a configuration, not its figure.
        List<CostRow> costs = new ArrayList<>();
        List<LookupRow> lookups = new ArrayList<>();
        for (int sweep = 0; sweep < SWEEPS; sweep++) {
            for (int i = 0; i < options.vnodes().length; i++) {
                CostRow row = measureCost(options, options.vnodes()[i], lookupKeys);
                if (sweep == 0) {
                    costs.add(row);
                } else {
                    costs.set(i, CostRow.fastest(costs.get(i), row));
                }
            }
            for (int i = 0; i < options.lookupNodes().length; i++) {
                LookupRow row = measureLookups(options, options.lookupNodes()[i], lookupKeys);
                if (sweep == 0) {
                    lookups.add(row);
                } else {
                    lookups.set(i, LookupRow.fastest(lookups.get(i), row));
                }
            }
            log("timing sweep " + (sweep + 1) + " of " + SWEEPS + " done");
        }

        RackSpread.Result racks = RackSpread.measure(lookupKeys, options.roundMs());
        log("racks measured");

        Environment env = new Environment(
                LocalDate.now(ZoneOffset.UTC).toString(),
                Runtime.version().toString(),
                System.getProperty("java.vm.name"),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.arch"),
                loadBefore,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                (System.nanoTime() - started) / 1e9,
                String.join(" ", args));
        String markdown = SpreadMarkdown.render(options, env, keySets, spread, many, moves, costs, lookups, racks);
        if (options.out() == null) {
            System.out.print(markdown);
        } else {
            Files.createDirectories(options.out());
            Files.writeString(options.out().resolve("ring.md"), markdown);
            Files.writeString(
                    options.out().resolve("ring.json"),
                    SpreadJson.render(options, env, spread, many, moves, costs, lookups, racks));
            log("wrote " + options.out().resolve("ring.md") + " and ring.json");
        }
    }

    record Environment(
            String date,
            String java,
            String vm,
            int cpus,
            String arch,
            double loadBefore,
            double loadAfter,
            double seconds,
            String args) {}

    private static IntFunction<String> keyGenerator() {
        Random random = new Random(KEY_SEED);
        return i -> Long.toHexString(random.nextLong()); // called in order 0, 1, 2, ...
    }

    private static void measureSpread(
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
    private static ManyRow measureManyClusters(Options options, int vnodes) {
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
    private static void measureMoves(
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

    private static CostRow measureCost(Options options, int vnodes, byte[][] keys) {
        List<String> members = Naming.K8S.members(options.maxNodes());
        double buildMs = Timing.medianBuildMs(() -> new Ring(members, vnodes));
        Ring ring = new Ring(members, vnodes);
        int[] out = new int[RF];
        double ns = Timing.nsPerOp(() -> ringIndexes(ring, keys, out), keys.length, options.roundMs());
        return new CostRow(vnodes, members.size(), ring.approximateBytes(), buildMs, ns);
    }

    private static LookupRow measureLookups(Options options, int nodes, byte[][] keys) {
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

    private static void log(String message) {
        System.err.println("[spread-report] " + message);
    }
}
