package dev.dht.bench.scale;

import dev.dht.node.json.Json;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * make bench-scale-sim: what grows with the cluster, for 3, 10, 100 and 1,000 members with and without racks, on
 * the node's own code (ring, move plan, repair ranges, topology parsers; nothing copied) and without storing data:
 * writes docs/benchmarks/scale-sim.md and scale-sim.json (docs/benchmarks/scale-sim.md says how to read them).
 *
 * <p>Usage: {@code ScaleSim [--out DIR] [--sizes 3,10,100,1000] [--racks 3] [--round-ms 20] [--operator FILE]};
 * --operator names the JSON the operator's scale run wrote (its figures join the report).
 */
public final class ScaleSim {
    static final int LOOKUP_KEYS = 4096;

    record Options(Path out, int[] sizes, int racks, int roundMs, Path operator, Path nodeJar, List<String> nodeFlags) {
        static Options parse(String[] args) {
            Path out = null;
            int[] sizes = {3, 10, 100, 1000};
            int racks = 3;
            int roundMs = 20;
            Path operator = null;
            Path nodeJar = null;
            List<String> nodeFlags = List.of();
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--out" -> out = Path.of(v);
                    case "--sizes" ->
                        sizes = java.util.Arrays.stream(v.split(","))
                                .mapToInt(Integer::parseInt)
                                .toArray();
                    case "--racks" -> racks = Integer.parseInt(v);
                    case "--round-ms" -> roundMs = Integer.parseInt(v);
                    case "--operator" -> operator = Path.of(v);
                    case "--node-jar" -> nodeJar = Path.of(v);
                    case "--node-flags" ->
                        nodeFlags = v.isBlank() ? List.of() : List.of(v.trim().split("\\s+"));
                    default ->
                        throw new IllegalArgumentException("unknown option " + args[i]
                                + " (--out DIR, --sizes 3,10,100,1000, --racks 3, --round-ms 20, --operator FILE,"
                                + " --node-jar JAR, --node-flags 'JVM FLAGS')");
                }
                i++;
            }
            return new Options(out, sizes, racks, roundMs, operator, nodeJar, nodeFlags);
        }
    }

    public static void main(String[] args) throws IOException {
        Options o = Options.parse(args);
        Map<String, Object> operator = o.operator() != null && Files.exists(o.operator()) // read first: fail fast
                ? Json.parseObject(Files.readString(o.operator()))
                : null;
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        long started = System.nanoTime();
        byte[][] keys = PlacementSim.keys(LOOKUP_KEYS);
        List<PlacementSim.Result> placement = new ArrayList<>();
        List<RepairModel.Result> repair = new ArrayList<>();
        List<TopologySim.Result> topology = new ArrayList<>();
        List<ChoiceSim.Result> choice = new ArrayList<>();
        for (int n : o.sizes()) {
            for (int racks : new int[] {0, o.racks()}) {
                Cluster c = new Cluster(n, racks);
                placement.add(PlacementSim.measure(c, keys, o.roundMs()));
                repair.add(RepairModel.measure(c));
                topology.add(TopologySim.measure(c, o.roundMs()));
                log(c.label() + " measured");
            }
            choice.add(ChoiceSim.measure(n, o.roundMs()));
        }
        List<PeerFanout.Result> fanout = new ArrayList<>();
        if (o.nodeJar() != null) { // a real node process per size, last: its JIT and GC work stay out of the above
            List<String> node = new ArrayList<>();
            node.add(ProcessHandle.current().info().command().orElse("java"));
            node.addAll(o.nodeFlags());
            node.addAll(List.of("-jar", o.nodeJar().toString()));
            Path work = Path.of(System.getProperty("java.io.tmpdir"));
            for (int n : o.sizes()) {
                if (n >= 3) {
                    try {
                        fanout.add(PeerFanout.measure(n, node, work));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException(e);
                    }
                    log("a node process with " + (n - 1) + " peers measured");
                }
            }
        }
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("java", Runtime.version().toString());
        env.put("cpus", (long) Runtime.getRuntime().availableProcessors());
        env.put("loadBefore", loadBefore);
        env.put("loadAfter", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        env.put("seconds", (System.nanoTime() - started) / 1e9);
        String md = ScaleMarkdown.render(env, placement, repair, topology, choice, fanout, operator);
        String json = ScaleJson.render(env, placement, repair, topology, choice, fanout, operator);
        if (o.out() == null) {
            System.out.print(md);
        } else {
            Files.createDirectories(o.out());
            Path report = o.out().resolve("scale-sim.md");
            Files.writeString(report, splice(Files.exists(report) ? Files.readString(report) : null, md));
            Files.writeString(o.out().resolve("scale-sim.json"), json + "\n");
            log("wrote " + o.out().resolve("scale-sim.md") + " and scale-sim.json");
        }
    }

    static final String BEGIN = "<!-- figures: written by make bench-scale-sim, do not edit by hand -->";
    static final String END = "<!-- end of figures -->";

    /** The report with its figures replaced: the hand-kept text around the markers (method, limits) stays. */
    static String splice(String existing, String figures) {
        int b = existing == null ? -1 : existing.indexOf(BEGIN);
        int e = existing == null ? -1 : existing.indexOf(END);
        if (b < 0 || e < b) {
            return "# Scale by simulation\n\n" + BEGIN + "\n" + figures + END + "\n";
        }
        return existing.substring(0, b + BEGIN.length()) + "\n" + figures + existing.substring(e);
    }

    static void log(String message) {
        System.err.println("[scale-sim] " + message);
    }
}
