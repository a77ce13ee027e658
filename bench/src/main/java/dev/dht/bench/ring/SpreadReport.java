package dev.dht.bench.ring;

import static dev.dht.bench.ring.SpreadMeasures.measureCost;
import static dev.dht.bench.ring.SpreadMeasures.measureLookups;
import static dev.dht.bench.ring.SpreadMeasures.measureManyClusters;
import static dev.dht.bench.ring.SpreadMeasures.measureMoves;
import static dev.dht.bench.ring.SpreadMeasures.measureSpread;
import static dev.dht.bench.ring.SpreadMeasures.rendezvous;
import static dev.dht.bench.ring.SpreadMeasures.ring;

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
import java.util.function.IntFunction;

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
 * are deterministic (fixed seeds, fixed names); lookup times depend on the machine and its load. How each figure is
 * measured is {@link SpreadMeasures}; {@link SpreadMarkdown} and {@link SpreadJson} render them.
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

    private static void log(String message) {
        System.err.println("[spread-report] " + message);
    }
}
