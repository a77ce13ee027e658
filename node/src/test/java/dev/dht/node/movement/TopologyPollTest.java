package dev.dht.node.movement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.json.Json;
import dev.dht.node.support.TestNode;
import dev.dht.node.topology.TopologyReport;
import dev.dht.node.topology.TopologyState;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The poll every member makes of every other during a move (GET /v0/internal/topology on the member port), on a
 * real node: a poll that names the node's own state gets the brief report, whose size does not grow with the
 * member lists, and reads back as that state; any other poll gets the full report (docs/benchmarks/scale-sim.md:
 * full reports made the polls O(N^2) per member).
 */
class TopologyPollTest {
    @TempDir
    static Path dir;

    static TestNode node;

    @BeforeAll
    static void start() {
        node = TestNode.start(dir);
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    private static String poll(String query) {
        HttpResponse<byte[]> r = node.send(HttpRequest.newBuilder(node.memberUri("/v0/internal/topology" + query))
                .GET());
        assertThat(r.statusCode()).isEqualTo(200);
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void aPollNamingTheNodesOwnStateGetsTheBriefReportAndReadsItBackAsThatState() {
        String full = poll("");
        TopologyReport report = TopologyReport.fromJson(full);
        TopologyState state = report.state();
        assertThat(state).as("the node has decided its state").isNotNull();
        String header = state.header();

        String brief = poll("?known=" + header);
        Map<String, Object> m = Json.parseObject(brief);
        assertThat(m)
                .containsEntry("same", true)
                .containsEntry("header", header)
                .doesNotContainKeys("stable", "target");
        assertThat(brief).doesNotContain("members");
        TopologyReport read = TopologyReport.fromJson(brief, state, header);
        assertThat(read.state()).isEqualTo(state);
        assertThat(read.drained()).isEqualTo(report.drained());
        assertThat(read.sent()).isEqualTo(report.sent());

        assertThat(poll("?known=0.s.0123456789abcdef.-"))
                .as("another state: the full report")
                .isEqualTo(full);
        assertThatThrownBy(() -> TopologyReport.fromJson(brief, state, "0.s.0123456789abcdef.-"))
                .as("a brief report answers only the poll that named its state")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TopologyReport.fromJson(brief)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theBriefReportDoesNotGrowWithTheMemberLists() {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            urls.add("http://dht-" + i + ".dht-headless.default.svc.cluster.local:8080");
        }
        TopologyState moving =
                TopologyState.initial(ClusterMembers.of(urls.subList(0, 999))).announce(ClusterMembers.of(urls));
        TopologyReport r = new TopologyReport(urls.get(0), moving, false, true);
        String brief = Json.write(r.toBriefJson(moving.header()));
        assertThat(brief.length()).isLessThan(200);
        assertThat(Json.write(r.toJson()).length()).isGreaterThan(100_000);
        assertThat(TopologyReport.fromJson(brief, moving, moving.header()).state())
                .isEqualTo(moving);
    }
}
