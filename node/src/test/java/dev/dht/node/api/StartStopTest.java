package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dht.node.Node;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.support.TestNode;
import java.nio.file.Path;
import java.time.Duration;
import one.nio.http.HttpClient;
import one.nio.net.ConnectionString;
import one.nio.pool.PoolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The course's StartStopTest: nothing listens before start or after stop; status is 200 in between. */
class StartStopTest {

    @Test
    void notListeningBeforeStartServingAfterAndGoneAfterStop(@TempDir Path dir) throws Exception {
        int port = TestNode.freePort();
        try (HttpClient before = client(port)) {
            assertThatThrownBy(() -> before.get("/v0/status")).isInstanceOf(PoolException.class);
        }
        Node node = Node.start(NodeConfig.defaults(port, dir));
        try (HttpClient during = client(port)) {
            await().atMost(Duration.ofSeconds(1))
                    .untilAsserted(() ->
                            assertThat(during.get("/v0/status").getStatus()).isEqualTo(200));
        }
        node.close();
        try (HttpClient after = client(port)) {
            assertThatThrownBy(() -> after.get("/v0/status")).isInstanceOf(PoolException.class);
        }
    }

    @Test
    void restartOnTheSameDirectoryKeepsTheData(@TempDir Path dir) throws Exception {
        try (TestNode first = TestNode.start(dir)) {
            assertThat(first.client()
                            .put("/v0/entity?id=k", new byte[] {1, 2, 3})
                            .getStatus())
                    .isEqualTo(201);
            assertThat(first.client().put("/v0/entity?id=gone", new byte[] {1}).getStatus())
                    .isEqualTo(201);
            assertThat(first.client().delete("/v0/entity?id=gone").getStatus()).isEqualTo(202);
        }
        try (TestNode second = TestNode.start(dir)) {
            assertThat(second.client().get("/v0/entity?id=k").getBody()).containsExactly(1, 2, 3);
            assertThat(second.client().get("/v0/entity?id=gone").getStatus()).isEqualTo(404);
        }
    }

    private static HttpClient client(int port) {
        return new HttpClient(new ConnectionString("http://localhost:" + port));
    }
}
