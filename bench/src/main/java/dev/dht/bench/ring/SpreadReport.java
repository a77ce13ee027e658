package dev.dht.bench.ring;

import dev.dht.node.ring.Ring;
import dev.dht.node.ring.XxHash64;

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
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * Measures placement and writes the figures docs/placement.md quotes: how evenly the ring spreads 1M keys over
 * 3..10 nodes for several vnode counts (primaries and replica sets at RF 3), how many keys move when a node joins,
 * what a ring costs (memory, build time, lookup ns), and the same for rendezvous hashing.
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
    private static final int RF = 3;
    private static final long KEY_SEED = 20_240_917L;
    private static final int LOOKUP_KEYS = 4096; // hot in cache: measures the ring, not memory fetches of keys
    private static final int NAMESPACES = 50;
    private static final int ROUNDS = 21;
    private static final int SWEEPS = 3;

    private static volatile long sink;

    private SpreadReport() {
    }

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
                    default -> throw new IllegalArgumentException("unknown option " + args[i]
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
            return Arrays.stream(list.split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
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
            double var = Arrays.stream(counts).mapToDouble(c -> (c - mean) * (c - mean)).sum() / counts.length;
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
    record SpreadRow(String placement, int vnodes, Naming naming, String keySet, int nodes, Spread primaries,
                     Spread rf3) {
    }

    record MoveRow(String placement, int vnodes, int from, int to, double primariesMoved, long primariesToOldNodes,
                   double copiesMoved, long copiesToOldNodes, double listsChanged) {
        double ideal() {
            return 1.0 / to;
        }
    }

    record CostRow(int vnodes, int nodes, long bytes, double buildMs, double lookupNs) {
        static CostRow fastest(CostRow a, CostRow b) {
            return new CostRow(a.vnodes, a.nodes, a.bytes, Math.min(a.buildMs, b.buildMs),
                    Math.min(a.lookupNs, b.lookupNs));
        }
    }

    /** Exact ownership over many clusters (namespaces x sizes) for one vnode count: the typical and the worst case. */
    record ManyRow(int vnodes, int clusters, double medianSd, double p95Max, double worstMax, double worstMin,
                   double rf3MedianSd, double rf3P95Max, double rf3WorstMax, double rf3WorstMin) {
    }

    record LookupRow(int nodes, double hashNs, double ringPrimaryNs, double ringIndexesNs, double ringListNs,
                     double rendezvousPrimaryNs, double rendezvousIndexesNs) {
        static LookupRow fastest(LookupRow a, LookupRow b) {
            return new LookupRow(a.nodes, Math.min(a.hashNs, b.hashNs), Math.min(a.ringPrimaryNs, b.ringPrimaryNs),
                    Math.min(a.ringIndexesNs, b.ringIndexesNs), Math.min(a.ringListNs, b.ringListNs),
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
                KeySet.of("hex", "`Long.toHexString(random.nextLong())`, seeded (the course tests' ids)",
                        keyGenerator(), options.keys()),
                KeySet.of("seq", "`\"key\" + i` for i = 0, 1, 2, ...", i -> "key" + i, options.keys()));
        log("keys ready");

        List<SpreadRow> spread = new ArrayList<>();
        List<MoveRow> moves = new ArrayList<>();
        for (int vnodes : options.vnodes()) {
            measureSpread(options, keySets, "ring", vnodes, members -> ring(new Ring(members, vnodes)), spread);
            measureMoves(options, keySets.get(0), "ring", vnodes, members -> ring(new Ring(members, vnodes)), moves);
            log("vnodes " + vnodes + " measured");
        }
        measureSpread(options, keySets, "rendezvous", 0,
                members -> rendezvous(new RendezvousPlacement(members)), spread);
        measureMoves(options, keySets.get(0), "rendezvous", 0,
                members -> rendezvous(new RendezvousPlacement(members)), moves);
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

        Environment env = new Environment(LocalDate.now(ZoneOffset.UTC).toString(), Runtime.version().toString(),
                System.getProperty("java.vm.name"), Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.arch"),
                loadBefore, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                (System.nanoTime() - started) / 1e9, String.join(" ", args));
        String markdown = Markdown.render(options, env, keySets, spread, many, moves, costs, lookups);
        if (options.out() == null) {
            System.out.print(markdown);
        } else {
            Files.createDirectories(options.out());
            Files.writeString(options.out().resolve("ring.md"), markdown);
            Files.writeString(options.out().resolve("ring.json"),
                    Json.render(options, env, spread, many, moves, costs, lookups));
            log("wrote " + options.out().resolve("ring.md") + " and ring.json");
        }
    }

    record Environment(String date, String java, String vm, int cpus, String arch, double loadBefore, double loadAfter,
                       double seconds, String args) {
    }

    private static IntFunction<String> keyGenerator() {
        Random random = new Random(KEY_SEED);
        return i -> Long.toHexString(random.nextLong()); // called in order 0, 1, 2, ...
    }

    private static void measureSpread(Options options, List<KeySet> keySets, String placement, int vnodes,
                                      Function<List<String>, Placement> build, List<SpreadRow> rows) {
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
                    rows.add(new SpreadRow(placement, vnodes, naming, keySet.name(), n,
                            Spread.of(primaries), Spread.of(copies)));
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
        return new ManyRow(vnodes, primaries.size(),
                quantile(primaries, Spread::sd, 0.5), quantile(primaries, Spread::max, 0.95),
                quantile(primaries, Spread::max, 1.0), 1 - quantile(primaries, s -> 1 - s.min(), 1.0),
                quantile(copies, Spread::sd, 0.5), quantile(copies, Spread::max, 0.95),
                quantile(copies, Spread::max, 1.0), 1 - quantile(copies, s -> 1 - s.min(), 1.0));
    }

    private static double quantile(List<Spread> spreads, ToDoubleFunction<Spread> value, double q) {
        double[] values = spreads.stream().mapToDouble(value).sorted().toArray();
        return values[(int) Math.min(values.length - 1, Math.ceil(q * values.length) - 1)];
    }

    /** Grows a StatefulSet-named cluster one node at a time and counts what moves. */
    private static void measureMoves(Options options, KeySet keySet, String placement, int vnodes,
                                     Function<List<String>, Placement> build, List<MoveRow> rows) {
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
            rows.add(new MoveRow(placement, vnodes, n, n + 1, primariesMoved / keys, primariesToOld,
                    copiesMoved / (keys * RF), copiesToOld, listsChanged / keys));
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
        double[] buildMs = new double[7];
        Ring ring = null;
        for (int i = 0; i < buildMs.length; i++) {
            long t0 = System.nanoTime();
            ring = new Ring(members, vnodes);
            buildMs[i] = (System.nanoTime() - t0) / 1e6;
        }
        Ring measured = ring;
        int[] out = new int[RF];
        double ns = nsPerOp(() -> ringIndexes(measured, keys, out), keys.length, options.roundMs());
        return new CostRow(vnodes, members.size(), ring.approximateBytes(), median(buildMs), ns);
    }

    private static LookupRow measureLookups(Options options, int nodes, byte[][] keys) {
        List<String> members = Naming.K8S.members(nodes);
        Ring ring = new Ring(members);
        RendezvousPlacement rendezvous = new RendezvousPlacement(members);
        int[] out = new int[RF];
        long[] scores = new long[RF];
        int round = options.roundMs();
        int from = Math.min(RF, nodes);
        return new LookupRow(nodes,
                nsPerOp(() -> hashes(keys), keys.length, round),
                nsPerOp(() -> ringPrimary(ring, keys), keys.length, round),
                nsPerOp(() -> ringIndexes(ring, keys, out), keys.length, round),
                nsPerOp(() -> ringList(ring, keys, from), keys.length, round),
                nsPerOp(() -> rendezvousPrimary(rendezvous, keys), keys.length, round),
                nsPerOp(() -> rendezvousIndexes(rendezvous, keys, from, out, scores), keys.length, round));
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

    private static long ringIndexes(Ring ring, byte[][] keys, int[] out) {
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

    private static long rendezvousIndexes(RendezvousPlacement rendezvous, byte[][] keys, int from, int[] out,
                                          long[] scores) {
        long acc = 0;
        for (byte[] key : keys) {
            rendezvous.replicaIndexes(Ring.keyHash(key), from, out, scores);
            acc += out[from - 1];
        }
        return acc;
    }

    /**
     * Ns per operation in the fastest of {@value #ROUNDS} timed rounds of about roundMs each, after 5 warm-up rounds:
     * on a shared machine other processes only ever add time, so the fastest round is the closest to the code's own
     * cost, and many short rounds give it more chances to run undisturbed.
     */
    private static double nsPerOp(LongSupplier pass, int opsPerPass, int roundMs) {
        long target = roundMs * 1_000_000L;
        int passes = 1;
        while (true) {
            long elapsed = timePasses(pass, passes);
            if (elapsed >= target / 4 || passes >= 1 << 24) {
                passes = (int) Math.max(1, Math.min(1L << 24, passes * target / Math.max(1, elapsed)));
                break;
            }
            passes *= 2;
        }
        for (int i = 0; i < 5; i++) {
            timePasses(pass, passes);
        }
        double best = Double.MAX_VALUE;
        for (int i = 0; i < ROUNDS; i++) {
            best = Math.min(best, (double) timePasses(pass, passes) / ((long) passes * opsPerPass));
        }
        return best;
    }

    private static long timePasses(LongSupplier pass, int passes) {
        long acc = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < passes; i++) {
            acc += pass.getAsLong();
        }
        long elapsed = System.nanoTime() - t0;
        sink += acc;
        return elapsed;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static void log(String message) {
        System.err.println("[spread-report] " + message);
    }

    /** ring.md: the tables docs/placement.md quotes. */
    private static final class Markdown {
        private final StringBuilder md = new StringBuilder();

        static String render(Options options, Environment env, List<KeySet> keySets, List<SpreadRow> spread,
                             List<ManyRow> many, List<MoveRow> moves, List<CostRow> costs, List<LookupRow> lookups) {
            Markdown m = new Markdown();
            m.header(options, env, keySets);
            m.vnodeChoice(options, spread, moves, costs);
            m.manyClusters(options, many);
            m.perClusterSize(options, spread);
            m.moves(moves);
            m.lookups(lookups);
            return m.md.toString();
        }

        private void line(String format, Object... args) {
            md.append(String.format(Locale.ROOT, format, args)).append('\n');
        }

        private void header(Options options, Environment env, List<KeySet> keySets) {
            line("# Placement benchmark: consistent-hash ring vs rendezvous");
            line("");
            line("Generated by `make bench-ring` (`scripts/bench-ring.sh`, which runs"
                    + " `dev.dht.bench.ring.SpreadReport`); explained in [../placement.md](../placement.md).");
            line("");
            line("- Run: %s, Java %s (%s), %d CPUs (%s), load average %.2f before / %.2f after, %.0f s.",
                    env.date(), env.java(), env.vm(), env.cpus(), env.arch(), env.loadBefore(), env.loadAfter(),
                    env.seconds());
            line("- Arguments: `%s`", env.args().isEmpty() ? "(defaults)" : env.args());
            line("- %,d keys per key set:", options.keys());
            for (KeySet keySet : keySets) {
                line("  - `%s`: %s", keySet.name(), keySet.description());
            }
            line("- Member names: `k8s` = `%s`.. (a StatefulSet behind its headless Service), `local` = `%s`..",
                    Naming.K8S.members(1).get(0), Naming.LOCAL.members(1).get(0));
            line("- Load is relative to the mean: primaries (the first replica, K/n per node at best) and copies at"
                    + " RF %d (the first %d replicas, %dK/n per node at best). `min`/`max` are the lightest and"
                    + " heaviest node's deviation from the mean, `sd` the standard deviation of the per-node load.",
                    RF, RF, RF);
            line("- Spread and movement are deterministic (fixed seeds and names); lookup times depend on the machine"
                    + " and its load: each is the fastest of %d sweeps x %d rounds of about %d ms (build times: the"
                    + " fastest sweep's median of 7 builds), one thread, %d keys hot in cache, so they are the cost of"
                    + " the placement code itself, not of cache misses under a server's load.",
                    SWEEPS, ROUNDS, options.roundMs(), LOOKUP_KEYS);
            line("");
        }

        private void vnodeChoice(Options options, List<SpreadRow> spread, List<MoveRow> moves, List<CostRow> costs) {
            line("## 1. Vnodes per member: spread against cost");
            line("");
            line("Worst case over n = %d..%d nodes, both namings and both key sets; moves and costs on `k8s` names"
                    + " (`hex` keys); costs at n = %d.", options.minNodes(), options.maxNodes(), options.maxNodes());
            line("");
            line("| placement | vnodes | primaries min | max | sd | RF %d copies min | max | sd "
                    + "| primaries moved n→n+1, worst / ideal | memory at n=%d | build at n=%d"
                    + " | lookup RF %d at n=%d |",
                    RF, options.maxNodes(), options.maxNodes(), RF, options.maxNodes());
            line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            for (int vnodes : options.vnodes()) {
                CostRow cost = costs.stream().filter(c -> c.vnodes() == vnodes).findFirst().orElseThrow();
                row("ring" + (vnodes == Ring.DEFAULT_VNODES ? " (default)" : ""), Integer.toString(vnodes),
                        worst(spread, "ring", vnodes), worstMove(moves, "ring", vnodes),
                        kib(cost.bytes()), String.format(Locale.ROOT, "%.2f ms", cost.buildMs()),
                        String.format(Locale.ROOT, "%.1f ns", cost.lookupNs()));
            }
            row("rendezvous", "–", worst(spread, "rendezvous", 0), worstMove(moves, "rendezvous", 0),
                    options.maxNodes() + " x 8 B", "–", "see §5");
            line("");
        }

        private void row(String placement, String vnodes, Spread[] worst, double moveRatio, String memory,
                         String build, String lookup) {
            line("| %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %s | %s |", placement, vnodes,
                    dev(worst[0].min() - 1), dev(worst[0].max() - 1), pct(worst[0].sd()),
                    dev(worst[1].min() - 1), dev(worst[1].max() - 1), pct(worst[1].sd()),
                    moveRatio, memory, build, lookup);
        }

        private void manyClusters(Options options, List<ManyRow> many) {
            line("## 2. Vnodes per member: the spread a cluster can expect");
            line("");
            line("Section 1 is one set of names. The ring depends on the names, so the same pods in another namespace"
                    + " get another ring: here `http://dht-<i>.dht-headless.team-<j>.svc.cluster.local:8080` for"
                    + " %d namespaces x n = %d..%d, %d rings per row, each node's share computed exactly from the arc"
                    + " lengths (no keys, no sampling noise; RF %d copies only for n > %d, where they can differ)."
                    + " Rendezvous has no such spread: every member's expected share is exactly 1/n, only the keys'"
                    + " own randomness remains (section 1).",
                    NAMESPACES, options.minNodes(), options.maxNodes(), many.isEmpty() ? 0 : many.get(0).clusters(),
                    RF, RF);
            line("");
            line("| vnodes | primaries: median sd | 95th pct heaviest | worst heaviest | worst lightest "
                    + "| RF %d copies: median sd | 95th pct heaviest | worst heaviest | worst lightest |", RF);
            line("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            for (ManyRow r : many) {
                line("| %d%s | %s | %s | %s | %s | %s | %s | %s | %s |", r.vnodes(),
                        r.vnodes() == Ring.DEFAULT_VNODES ? " (default)" : "", pct(r.medianSd()), dev(r.p95Max() - 1),
                        dev(r.worstMax() - 1), dev(r.worstMin() - 1), pct(r.rf3MedianSd()), dev(r.rf3P95Max() - 1),
                        dev(r.rf3WorstMax() - 1), dev(r.rf3WorstMin() - 1));
            }
            line("");
        }

        private void perClusterSize(Options options, List<SpreadRow> spread) {
            line("## 3. Spread per cluster size: ring with %d vnodes vs rendezvous", Ring.DEFAULT_VNODES);
            line("");
            line("Worst of both namings and both key sets. The last column is the spread that pure chance gives %,d"
                    + " keys placed independently at random (binomial sd of primaries), the floor no placement beats.",
                    options.keys());
            line("");
            line("| n | ring primaries min / max / sd | ring RF %d copies min / max / sd "
                    + "| rendezvous primaries min / max / sd | rendezvous RF %d copies min / max / sd | chance sd |",
                    RF, RF);
            line("|---:|---|---|---|---|---:|");
            for (int n = options.minNodes(); n <= options.maxNodes(); n++) {
                int nodes = n;
                List<SpreadRow> ofSize = spread.stream().filter(r -> r.nodes() == nodes).toList();
                Spread[] ring = worst(ofSize, "ring", Ring.DEFAULT_VNODES);
                Spread[] rv = worst(ofSize, "rendezvous", 0);
                if (ring == null) {
                    continue; // the default vnode count was not among the measured ones
                }
                line("| %d | %s | %s | %s | %s | %s |", n, triple(ring[0]), triple(ring[1]), triple(rv[0]),
                        triple(rv[1]), pct(Math.sqrt((n - 1.0) / options.keys())));
            }
            line("");
        }

        private void moves(List<MoveRow> moves) {
            line("## 4. Keys moved when a node joins (`k8s` names, `hex` keys)");
            line("");
            line("A StatefulSet scaled from n to n+1 pods. Ideal: the new node takes 1/(n+1) of the primaries and of"
                    + " the copies, from everyone, and nothing moves between old nodes (\"to old nodes\" must be 0)."
                    + " \"lists changed\": keys whose RF %d replica list changed at all.", RF);
            line("");
            line("| n → n+1 | ideal | ring: primaries moved | to old nodes | copies moved | to old nodes"
                    + " | lists changed | rendezvous: primaries moved | to old nodes | copies moved | to old nodes"
                    + " | lists changed |");
            line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            for (MoveRow ring : moves) {
                if (!ring.placement().equals("ring") || ring.vnodes() != Ring.DEFAULT_VNODES) {
                    continue;
                }
                MoveRow rv = moves.stream().filter(m -> m.placement().equals("rendezvous") && m.from() == ring.from())
                        .findFirst().orElseThrow();
                line("| %d → %d | %s | %s | %d | %s | %d | %s | %s | %d | %s | %d | %s |", ring.from(), ring.to(),
                        pct(ring.ideal()), pct(ring.primariesMoved()), ring.primariesToOldNodes(),
                        pct(ring.copiesMoved()), ring.copiesToOldNodes(), pct(ring.listsChanged()),
                        pct(rv.primariesMoved()),
                        rv.primariesToOldNodes(), pct(rv.copiesMoved()), rv.copiesToOldNodes(), pct(rv.listsChanged()));
            }
            line("");
        }

        private void lookups(List<LookupRow> lookups) {
            line("## 5. Lookup cost (ns per key, including hashing the key; ring with %d vnodes per member)",
                    Ring.DEFAULT_VNODES);
            line("");
            line("`RF %d` asks for min(%d, n) replicas. Ring: `indexes` fills a caller's int[] (no allocation), `List`"
                    + " returns the immutable member list a coordinator would use. Rendezvous scores every member.",
                    RF, RF);
            line("");
            line("| n | key hash only | ring primary | ring RF %d indexes | ring RF %d List | rendezvous primary"
                    + " | rendezvous RF %d |", RF, RF, RF);
            line("|---:|---:|---:|---:|---:|---:|---:|");
            for (LookupRow r : lookups) {
                line("| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |", r.nodes(), r.hashNs(), r.ringPrimaryNs(),
                        r.ringIndexesNs(), r.ringListNs(), r.rendezvousPrimaryNs(), r.rendezvousIndexesNs());
            }
        }

        private static Spread[] worst(List<SpreadRow> rows, String placement, int vnodes) {
            Spread primaries = null;
            Spread copies = null;
            for (SpreadRow r : rows) {
                if (r.placement().equals(placement) && r.vnodes() == vnodes) {
                    primaries = primaries == null ? r.primaries() : primaries.worst(r.primaries());
                    copies = copies == null ? r.rf3() : copies.worst(r.rf3());
                }
            }
            return primaries == null ? null : new Spread[] {primaries, copies};
        }

        private static double worstMove(List<MoveRow> moves, String placement, int vnodes) {
            return moves.stream().filter(m -> m.placement().equals(placement) && m.vnodes() == vnodes)
                    .mapToDouble(m -> Math.max(m.primariesMoved() / m.ideal(), m.ideal() / m.primariesMoved()))
                    .max().orElse(Double.NaN);
        }

        private static String triple(Spread s) {
            return dev(s.min() - 1) + " / " + dev(s.max() - 1) + " / " + pct(s.sd());
        }

        /** A signed deviation: +8.3%, -12.0%. */
        private static String dev(double fraction) {
            return String.format(Locale.ROOT, "%+.1f%%", fraction * 100);
        }

        private static String pct(double fraction) {
            return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
        }

        private static String kib(long bytes) {
            return bytes < 10 * 1024 ? bytes + " B" : String.format(Locale.ROOT, "%,d KiB", bytes / 1024);
        }
    }

    /** ring.json: every measured row, for plots and for comparing runs. */
    private static final class Json {
        static String render(Options options, Environment env, List<SpreadRow> spread, List<ManyRow> many,
                             List<MoveRow> moves, List<CostRow> costs, List<LookupRow> lookups) {
            StringBuilder j = new StringBuilder();
            j.append("{\n");
            j.append(String.format(Locale.ROOT, "  \"date\": \"%s\", \"java\": \"%s\", \"cpus\": %d, \"arch\": \"%s\","
                            + " \"loadAverageBefore\": %.2f, \"loadAverageAfter\": %.2f,\n",
                    env.date(), env.java(), env.cpus(), env.arch(), env.loadBefore(), env.loadAfter()));
            j.append(String.format(Locale.ROOT, "  \"keys\": %d, \"replicationFactor\": %d, \"defaultVnodes\": %d,\n",
                    options.keys(), RF, Ring.DEFAULT_VNODES));
            j.append("  \"spread\": [\n");
            join(j, spread, r -> String.format(Locale.ROOT,
                    "{\"placement\": \"%s\", \"vnodes\": %d, \"naming\": \"%s\", \"keys\": \"%s\", \"nodes\": %d, "
                            + "\"primaries\": %s, \"rf3Copies\": %s}",
                    r.placement(), r.vnodes(), r.naming().label(), r.keySet(), r.nodes(), spread(r.primaries()),
                    spread(r.rf3())));
            j.append("  ],\n  \"exactOwnershipOverNamespaces\": [\n");
            join(j, many, r -> String.format(Locale.ROOT,
                    "{\"vnodes\": %d, \"clusters\": %d, \"primaries\": {\"medianSd\": %.5f, \"p95Max\": %.5f, "
                            + "\"worstMax\": %.5f, \"worstMin\": %.5f}, \"rf3Copies\": {\"medianSd\": %.5f, "
                            + "\"p95Max\": %.5f, \"worstMax\": %.5f, \"worstMin\": %.5f}}",
                    r.vnodes(), r.clusters(), r.medianSd(), r.p95Max(), r.worstMax(), r.worstMin(), r.rf3MedianSd(),
                    r.rf3P95Max(), r.rf3WorstMax(), r.rf3WorstMin()));
            j.append("  ],\n  \"moves\": [\n");
            join(j, moves, m -> String.format(Locale.ROOT,
                    "{\"placement\": \"%s\", \"vnodes\": %d, \"from\": %d, \"to\": %d, \"ideal\": %.6f, "
                            + "\"primariesMoved\": %.6f, \"primariesToOldNodes\": %d, \"copiesMoved\": %.6f, "
                            + "\"copiesToOldNodes\": %d, \"listsChanged\": %.6f}",
                    m.placement(), m.vnodes(), m.from(), m.to(), m.ideal(), m.primariesMoved(), m.primariesToOldNodes(),
                    m.copiesMoved(), m.copiesToOldNodes(), m.listsChanged()));
            j.append("  ],\n  \"ringCost\": [\n");
            join(j, costs, c -> String.format(Locale.ROOT,
                    "{\"vnodes\": %d, \"nodes\": %d, \"approxBytes\": %d, \"buildMs\": %.3f, \"lookupRf3Ns\": %.2f}",
                    c.vnodes(), c.nodes(), c.bytes(), c.buildMs(), c.lookupNs()));
            j.append("  ],\n  \"lookupNs\": [\n");
            join(j, lookups, l -> String.format(Locale.ROOT,
                    "{\"nodes\": %d, \"keyHash\": %.2f, \"ringPrimary\": %.2f, \"ringRf3Indexes\": %.2f, "
                            + "\"ringRf3List\": %.2f, \"rendezvousPrimary\": %.2f, \"rendezvousRf3\": %.2f}",
                    l.nodes(), l.hashNs(), l.ringPrimaryNs(), l.ringIndexesNs(), l.ringListNs(),
                    l.rendezvousPrimaryNs(), l.rendezvousIndexesNs()));
            j.append("  ]\n}\n");
            return j.toString();
        }

        private static String spread(Spread s) {
            return String.format(Locale.ROOT, "{\"min\": %.5f, \"max\": %.5f, \"sd\": %.5f}", s.min(), s.max(), s.sd());
        }

        private static <T> void join(StringBuilder j, List<T> rows, Function<T, String> format) {
            for (int i = 0; i < rows.size(); i++) {
                j.append("    ").append(format.apply(rows.get(i))).append(i + 1 < rows.size() ? ",\n" : "\n");
            }
        }
    }
}
