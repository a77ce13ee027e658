package dev.dht.bench.scale;

import dev.dht.node.peer.PeerSizing;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** scale-sim.md's figures (the method and the limits around them are kept by hand in the same file). */
final class ScaleMarkdown {
    private ScaleMarkdown() {}

    static String render(
            Map<String, Object> env,
            List<PlacementSim.Result> placement,
            List<RepairModel.Result> repair,
            List<TopologySim.Result> topology,
            List<ChoiceSim.Result> choice,
            List<PeerFanout.Result> fanout,
            Map<String, Object> operator) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "Java %s, %d CPUs, load average %.1f before and %.1f after, %.0f s.%n%n",
                env.get("java"),
                env.get("cpus"),
                env.get("loadBefore"),
                env.get("loadAfter"),
                env.get("seconds")));

        b.append("### Ring: build, memory, lookup, balance (RF 3, 1,024 vnodes per member)\n\n");
        b.append("| members | build ms | ring MB | lookup ns/key | heaviest / mean | lightest / mean |\n");
        b.append("|---|---:|---:|---:|---:|---:|\n");
        for (PlacementSim.Result r : placement) {
            b.append(f(
                    "| %s | %.1f | %.2f | %.0f | %.3f | %.3f |%n",
                    r.cluster().label(),
                    r.buildMs(),
                    r.ringBytes() / 1e6,
                    r.lookupNs(),
                    r.maxShareOverMean(),
                    r.minShareOverMean()));
        }

        b.append("\n### Movement: one member joins, one leaves (exact, arc by arc)\n\n");
        b.append("| members | move | copies moved | ideal 1/N | moved / ideal | sends per moved copy "
                + "| busiest sender (of its copies) | busiest receiver (of its copies) | plan ns/key |\n");
        b.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (PlacementSim.Result r : placement) {
            for (PlacementSim.Move m : new PlacementSim.Move[] {r.join(), r.leave()}) {
                if (m != null) {
                    b.append(f(
                            "| %s | %s %d→%d | %.4f | %.4f | %.3f | %.2f | %.3f | %.3f | %.0f |%n",
                            r.cluster().label(),
                            m.kind(),
                            m.from(),
                            m.to(),
                            m.movedFraction(),
                            m.ideal(),
                            m.movedFraction() / m.ideal(),
                            m.sendsPerCopy(),
                            m.maxSent(),
                            m.maxReceived(),
                            m.planNsPerKey()));
                }
            }
        }
        b.append("\nPer member of 1 GB / 100 GB / 1 TB (1 KiB records: 2^20, 100 x 2^20, 2^30 keys), a join at the "
                + "default `--move-rate` (8 MiB/s per sender) and the sender's plan CPU:\n\n");
        b.append("| members | data per member | busiest sender sends | at 8 MiB/s | plan CPU per sender |\n");
        b.append("|---|---:|---:|---:|---:|\n");
        for (PlacementSim.Result r : placement) {
            if (r.cluster().racks() != 0) {
                continue;
            }
            for (long data : RepairModel.DATA_PER_MEMBER) {
                PlacementSim.Move m = r.join();
                double bytes = m.maxSent() * data;
                double keys = (double) data / RepairModel.RECORD_BYTES;
                b.append(f(
                        "| %d | %s | %s | %s | %s |%n",
                        r.cluster().size(),
                        size(data),
                        size(bytes),
                        duration(bytes / (8 << 20)),
                        duration(keys * m.planNsPerKey() / 1e9)));
            }
        }

        b.append("\n### Repair: one member's ranges, and one round's bytes by divergence\n\n");
        b.append("| members | arcs | replica sets | coordinated sets | coordinated arcs | build ms | heap MB |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (RepairModel.Result r : repair) {
            b.append(f(
                    "| %s | %d | %d | %d | %d | %.0f | %.1f |%n",
                    r.cluster().label(),
                    r.shape().arcs(),
                    r.shape().groups(),
                    r.shape().coordinatedGroups(),
                    r.shape().coordinatedArcs(),
                    r.buildMs(),
                    r.heapBytes() / 1e6));
        }
        b.append("\nBytes one member exchanges per round as coordinator (its sets' summaries, descent, listings and "
                + "records; the member answers about as much for the sets others coordinate):\n\n");
        b.append("| members | data per member | in sync | 1e-6 differ | 1e-4 differ | 1e-2 differ |"
                + " digests read (in sync) | calls (in sync) |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RepairModel.Result r : repair) {
            if (r.cluster().racks() != 0) {
                continue;
            }
            for (long data : RepairModel.DATA_PER_MEMBER) {
                StringBuilder row =
                        new StringBuilder(f("| %d | %s |", r.cluster().size(), size(data)));
                double scanned = 0;
                double calls = 0;
                for (RepairModel.Round round : r.rounds()) {
                    if (round.dataPerMember() == data) {
                        row.append(' ').append(size(round.bytes())).append(" |");
                        if (round.divergence() == 0) {
                            scanned = round.digestsScanned();
                            calls = round.calls();
                        }
                    }
                }
                b.append(row).append(f(" %.3g | %.0f |%n", scanned, calls));
            }
        }

        b.append("\n### Topology documents\n\n");
        b.append("| members | cluster file bytes | parse µs | full move report bytes | parse µs | header µs "
                + "| brief report bytes | parse µs | polls per member during a move, full reports (before) "
                + "| the same, brief reports (now) |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (TopologySim.Result r : topology) {
            b.append(f(
                    "| %s | %d | %.1f | %d | %.1f | %.1f | %d | %.1f | %s/s, %.1f%% of a core "
                            + "| %s/s, %.1f%% of a core |%n",
                    r.cluster().label(),
                    r.fileBytes(),
                    r.fileParseUs(),
                    r.reportBytes(),
                    r.reportParseUs(),
                    r.headerUs(),
                    r.briefBytes(),
                    r.briefParseUs(),
                    size(r.fullPollBytesPerSecond()),
                    100 * r.fullPollCpuPerSecond(),
                    size(r.pollBytesPerSecond()),
                    100 * r.pollCpuPerSecond()));
        }

        b.append("\n### Replica choice: one coordinator's state about its peers (ReplicaChoice, PeerHealth)\n\n");
        b.append("| members | heap per peer | heap, every peer called | one quorum read's bookkeeping ns "
                + "| the fastest-median refresh (every peer, at most every 50 ms) µs |\n|---|---:|---:|---:|---:|\n");
        for (ChoiceSim.Result c : choice) {
            b.append(f(
                    "| %d | %s | %s | %.0f | %.1f |%n",
                    c.members(), size(c.heapBytesPerPeer()), size(c.heapBytes()), c.readNs(), c.refreshNs() / 1000));
        }

        if (!fanout.isEmpty()) {
            b.append("\n### One real node process at N members: connections, threads, hints (measured)\n\n");
            b.append("The node's jar with N - 1 peers on loopback (N - 2 fake peers, one down), RF 3, after "
                    + "the writes shown (1 KiB values, 64 at a time); sockets and threads from /proc.\n\n");
            b.append("| members | writes (stored) | peers touched | node's connections to its peers | most to one "
                    + "peer | their buffers | sockets idle → after | threads idle → after | RSS MB | hints kept | bytes per hint "
                    + "| hint threads | hints delivered when the member returns | in s |\n");
            b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (PeerFanout.Result r : fanout) {
                b.append(f(
                        "| %d | %d (%d) | %d of %d | %d | %d | %s | %d → %d | %d → %d | %d | %d (%s) | %.0f | %d "
                                + "| %d | %.2f |%n",
                        r.members(),
                        r.writes(),
                        r.stored(),
                        r.peersTouched(),
                        r.members() - 2,
                        r.peerConnections(),
                        r.maxConnectionsToOnePeer(),
                        size((double) r.peerConnections() * PeerSizing.BYTES_PER_CONNECTION),
                        r.socketsIdle(),
                        r.sockets(),
                        r.threadsIdle(),
                        r.threads(),
                        r.rssMb(),
                        r.hintsStored(),
                        size(r.hintBytes()),
                        r.hintBytesEach(),
                        r.hintThreads(),
                        r.hintsDelivered(),
                        r.deliverSeconds()));
            }
            PeerFanout.Result last = fanout.get(fanout.size() - 1);
            b.append(f("%nThreads at %d members, by name: %s.%n", last.members(), last.threadsByName()));
        }
        b.append("\n![cost against members](scale-sim-members.svg)\n\n");

        if (operator != null) {
            b.append("\n### Operator: reconcile against a real API server\n\n");
            b.append(OperatorRows.render(operator));
        }
        return b.toString();
    }

    static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    static String size(double bytes) {
        String[] units = {"B", "KB", "MB", "GB", "TB"};
        int u = 0;
        while (bytes >= 1000 && u < units.length - 1) {
            bytes /= 1000;
            u++;
        }
        return f(bytes >= 100 || u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    }

    static String duration(double seconds) {
        if (seconds < 120) {
            return f("%.1f s", seconds);
        }
        if (seconds < 7200) {
            return f("%.0f min", seconds / 60);
        }
        return f("%.1f h", seconds / 3600);
    }
}
