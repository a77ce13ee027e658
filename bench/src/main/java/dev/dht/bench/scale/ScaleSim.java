package dev.dht.bench.scale;

import dev.dht.node.Node;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.json.Json;
import dev.dht.node.peer.PeerSizing;

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

    record Options(Path out, int[] sizes, int racks, int roundMs, Path operator) {
        static Options parse(String[] args) {
            Path out = null;
            int[] sizes = {3, 10, 100, 1000};
            int racks = 3;
            int roundMs = 20;
            Path operator = null;
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--out" -> out = Path.of(v);
                    case "--sizes" -> sizes = java.util.Arrays.stream(v.split(",")).mapToInt(Integer::parseInt)
                            .toArray();
                    case "--racks" -> racks = Integer.parseInt(v);
                    case "--round-ms" -> roundMs = Integer.parseInt(v);
                    case "--operator" -> operator = Path.of(v);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]
                            + " (--out DIR, --sizes 3,10,100,1000, --racks 3, --round-ms 20, --operator FILE)");
                }
                i++;
            }
            return new Options(out, sizes, racks, roundMs, operator);
        }
    }

    /**
     * Connections and threads per member, from the node's pool sizing (a model, stated): a member opens at most
     * {@link Node#PEER_CONNECTIONS} connections to each peer it talks to and accepts as many from each, so its
     * sockets grow as 2 x 8 x (N - 1); its threads do not grow with N (selectors, workers, one peer I/O thread and a
     * fixed set of background threads). Each outgoing connection holds its buffers (PeerSizing): one per peer
     * once the member has talked to every peer within the idle timeout, up to the full pools under load.
     */
    record Connections(int members, int peerSockets, int threads, long bufferBytesOnePerPeer,
                       long bufferBytesFullPools) {
        static final int FIXED_THREADS = 12; // peer I/O, admin x2, movement, repair, repair scans, topology, hints,
                                             // tombstone sweeper, cluster file, file poller, rebuild

        static Connections of(int n) {
            long perConnection = PeerSizing.BYTES_PER_CONNECTION;
            return new Connections(n, 2 * Node.PEER_CONNECTIONS * (n - 1),
                    NodeConfig.defaultSelectors() + NodeConfig.defaultWorkers() + FIXED_THREADS,
                    perConnection * (n - 1), perConnection * Node.PEER_CONNECTIONS * (n - 1));
        }
    }

    public static void main(String[] args) throws IOException {
        Options o = Options.parse(args);
        Map<String, Object> operator = o.operator() != null && Files.exists(o.operator()) // read first: fail fast
                ? Json.parseObject(Files.readString(o.operator())) : null;
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        long started = System.nanoTime();
        byte[][] keys = PlacementSim.keys(LOOKUP_KEYS);
        List<PlacementSim.Result> placement = new ArrayList<>();
        List<RepairModel.Result> repair = new ArrayList<>();
        List<TopologySim.Result> topology = new ArrayList<>();
        List<Connections> connections = new ArrayList<>();
        for (int n : o.sizes()) {
            for (int racks : new int[] {0, o.racks()}) {
                Cluster c = new Cluster(n, racks);
                placement.add(PlacementSim.measure(c, keys, o.roundMs()));
                repair.add(RepairModel.measure(c));
                topology.add(TopologySim.measure(c, o.roundMs()));
                log(c.label() + " measured");
            }
            connections.add(Connections.of(n));
        }
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("java", Runtime.version().toString());
        env.put("cpus", (long) Runtime.getRuntime().availableProcessors());
        env.put("loadBefore", loadBefore);
        env.put("loadAfter", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        env.put("seconds", (System.nanoTime() - started) / 1e9);
        String md = ScaleMarkdown.render(env, placement, repair, topology, connections, operator);
        String json = ScaleJson.render(env, placement, repair, topology, connections, operator);
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
