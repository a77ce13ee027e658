package dev.dht.node.movement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.json.Json;
import dev.dht.node.support.TestNode;
import dev.dht.node.topology.TopologyId;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One real node with a cluster file, driven through the stages a member that never comes up allows: a move to a
 * dead member stays announced (the node serves its stable set meanwhile), going back calls it off; internal
 * requests from states older than the node accepts are refused (421); a new node that cannot reach anyone does not
 * start a cluster of its own.
 */
class TopologyFencingTest {
    @TempDir
    Path dir;

    private TestNode node;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    private static void replace(Path file, String content) throws Exception {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> movement() {
        return Json.parseObject(new String(node.get("/v0/admin/movement").body(), StandardCharsets.UTF_8));
    }

    @SuppressWarnings("unchecked")
    private String stage() {
        return (String) ((Map<String, Object>) movement().get("topology")).get("stage");
    }

    private HttpResponse<byte[]> internalPut(String id, String topology) {
        HttpRequest.Builder r = HttpRequest.newBuilder(node.memberUri("/v0/entity?id=" + id))
                .PUT(HttpRequest.BodyPublishers.ofString("v"))
                .header("X-Dht-Internal", "1")
                .header("X-Dht-Timestamp", String.valueOf(System.currentTimeMillis() << 16));
        if (topology != null) {
            r.header("X-Dht-Topology", topology);
        }
        return node.send(r);
    }

    @Test
    void aMoveToAMemberThatNeverComesUpWaitsAnnouncedAndCanBeCalledOff() throws Exception {
        int port = TestNode.freePort();
        String self = "http://localhost:" + port;
        String dead = "http://localhost:" + TestNode.freePort();
        Path file = dir.resolve("members");
        replace(file, self + "\n");
        node = TestNode.start(NodeConfig.defaults(port, dir.resolve("data"))
                .withClusterFile(file, ClusterMembers.parseList(self), self));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> "idle".equals(movement().get("state")));
        String one = TopologyId.of(ClusterMembers.parseList(self));
        assertThat(internalPut("a", "0.s." + one + ".- " + self).statusCode()).isEqualTo(201);

        replace(file, self + "\n" + dead + "\n");
        await().atMost(Duration.ofSeconds(20)).until(() -> "announced".equals(stage()));
        // the loop names what it waits for after its first poll of the members in the announced stage
        await().atMost(Duration.ofSeconds(20))
                .until(() -> String.valueOf(movement().get("waitingFor")).contains(dead));
        Map<String, Object> m = movement();
        assertThat(m.get("state")).isEqualTo("moving");
        assertThat(((Map<?, ?>) m.get("topology")).get("phase")).isEqualTo("joint");
        assertThat(((Map<?, ?>) m.get("topology")).get("previous")).isEqualTo(List.of(self));
        assertThat((String) m.get("waitingFor")).contains(dead);
        // while announced, the node serves its stable set with full availability
        assertThat(node.put("/v0/entity?id=b", "v".getBytes()).statusCode()).isEqualTo(201);
        assertThat(node.get("/v0/entity?id=b").statusCode()).isEqualTo(200);
        assertThat(internalPut("c", "0.s." + one + ".- " + self).statusCode())
                .as("announced(1) still accepts stable(0): both serve S alone")
                .isEqualTo(201);

        replace(file, self + "\n");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> "idle".equals(movement().get("state")));
        assertThat(stage()).isEqualTo("stable");
        assertThat(((Number) ((Map<?, ?>) movement().get("topology")).get("epoch")).longValue())
                .isEqualTo(1L);

        HttpResponse<byte[]> old = internalPut("d", "0.s." + one + ".- " + self);
        assertThat(old.statusCode()).as("stable(1) refuses stable(0)").isEqualTo(421);
        assertThat(new String(old.body(), StandardCharsets.UTF_8)).contains("older");
        assertThat(old.headers().firstValue("X-Dht-Topology")).hasValue("1.s." + one + ".-");
        assertThat(internalPut("e", "1.s." + one + ".- " + self).statusCode()).isEqualTo(201);
        assertThat(internalPut("f", "1.s.0123456789abcdef.- " + self).statusCode())
                .as("same version, other set")
                .isEqualTo(421);
        assertThat(internalPut("g", "9.s.0123456789abcdef.- " + dead).statusCode())
                .as("a newer state is served (and asked for)")
                .isEqualTo(201);
        assertThat(internalPut("h", null).statusCode())
                .as("no header: a tool, served")
                .isEqualTo(201);
        assertThat(node.metric("dht_movement_refused_total")).isEqualTo(2.0);
        assertThat(node.get("/v0/entity?id=d").statusCode())
                .as("the refused write was not stored")
                .isEqualTo(404);
    }

    @Test
    void aNewNodeThatReachesNoMemberDoesNotStartAClusterOfItsOwn() throws Exception {
        int port = TestNode.freePort();
        String self = "http://localhost:" + port;
        String dead = "http://localhost:" + TestNode.freePort();
        Path file = dir.resolve("members");
        replace(file, self + "\n" + dead + "\n");
        node = TestNode.start(NodeConfig.defaults(port, dir.resolve("data"))
                .withClusterFile(file, ClusterMembers.parseList(self + "," + dead), self));
        await().atMost(Duration.ofSeconds(20)).until(() -> movement().get("waitingFor") != null);
        assertThat(movement().get("state")).isEqualTo("moving");
        assertThat(stage()).isEqualTo("starting");
        HttpResponse<byte[]> r = node.put("/v0/entity?id=k", "v".getBytes());
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("not learned");
        assertThat(Files.exists(dir.resolve("data").resolve("dht-topology.json")))
                .isFalse();
    }
}
