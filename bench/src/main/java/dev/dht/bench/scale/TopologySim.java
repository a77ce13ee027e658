package dev.dht.bench.scale;

import dev.dht.bench.ring.Timing;
import dev.dht.node.config.ClusterMembers;
import dev.dht.node.json.Json;
import dev.dht.node.movement.MovementSettings;
import dev.dht.node.topology.TopologyHeader;
import dev.dht.node.topology.TopologyReport;
import dev.dht.node.topology.TopologyState;
import java.nio.charset.StandardCharsets;

/**
 * The topology documents at one cluster size, with the node's own parsers: the cluster file the operator mounts
 * (one member a line) and the report every member polls from every other during a move
 * ({@code GET /v0/internal/topology}, S and T both listed). From the report's size and the node's poll interval
 * follow the bytes and the parse time each member spends per second of a move on polling its peers.
 */
final class TopologySim {
    /**
     * @param reportBytes        the full report (S and T listed): what a poll gets when the state is new to it
     * @param briefBytes         the brief report: what a poll that names the answering node's state gets
     * @param fullPollBytesPerSecond per member during a move if every poll got the full report (before issue 55)
     * @param fullPollCpuPerSecond   the same in seconds of CPU per second (header and N - 1 parses)
     * @param pollBytesPerSecond per member during a move now: N - 1 brief reports per poll interval
     * @param pollCpuPerSecond   the same in CPU
     */
    record Result(
            Cluster cluster,
            int fileBytes,
            double fileParseUs,
            int reportBytes,
            double reportParseUs,
            double headerUs,
            int briefBytes,
            double briefParseUs,
            double fullPollBytesPerSecond,
            double fullPollCpuPerSecond,
            double pollBytesPerSecond,
            double pollCpuPerSecond) {}

    private TopologySim() {}

    static Result measure(Cluster c, int roundMs) {
        StringBuilder file = new StringBuilder();
        for (String url : c.urls()) {
            String rack = c.rackMap().get(url);
            file.append(rack == null ? "" : rack + "=").append(url).append('\n');
        }
        String text = file.toString();
        if (ClusterMembers.parseFile(text).size() != c.size()) {
            throw new IllegalStateException("the cluster file did not parse back to " + c.size() + " members");
        }
        double fileUs = Timing.nsPerOp(() -> ClusterMembers.parseFile(text).size(), 1, roundMs) / 1e3;

        TopologyState moving =
                TopologyState.initial(c.members()).announce(c.grown().members());
        String self = c.url(0);
        String report = Json.write(new TopologyReport(self, moving, false, false).toJson());
        if (!TopologyReport.fromJson(report).state().equals(moving)) {
            throw new IllegalStateException("the report did not parse back to its state");
        }
        double reportUs = Timing.nsPerOp(() -> parse(report), 1, roundMs) / 1e3;
        double headerUs =
                Timing.nsPerOp(() -> TopologyHeader.request(moving, self).length(), 1, roundMs) / 1e3;
        int bytes = report.getBytes(StandardCharsets.UTF_8).length;
        String header = moving.header();
        String brief = Json.write(new TopologyReport(self, moving, false, false).toBriefJson(header));
        double briefUs = Timing.nsPerOp(() -> parse(brief, moving, header), 1, roundMs) / 1e3;
        int briefBytes = brief.getBytes(StandardCharsets.UTF_8).length;
        double polls = 1e9 / MovementSettings.DEFAULT_POLL.toNanos() * (c.size()); // N peers of S u T but self
        // the poller's header is now computed once per state, not once per poll
        return new Result(
                c,
                text.getBytes(StandardCharsets.UTF_8).length,
                fileUs,
                bytes,
                reportUs,
                headerUs,
                briefBytes,
                briefUs,
                polls * bytes,
                polls * (reportUs + headerUs) / 1e6,
                polls * briefBytes,
                polls * briefUs / 1e6);
    }

    private static long parse(String report) {
        return TopologyReport.fromJson(report).state().epoch();
    }

    private static long parse(String brief, TopologyState known, String header) {
        return TopologyReport.fromJson(brief, known, header).state().epoch();
    }
}
