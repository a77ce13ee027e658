package dev.dht.node.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.storage.Record;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StorageOptions;
import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.TestNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to the jar: the node stops accepting, lets the in-flight request (a 2 s profile capture) finish, closes
 * RocksDB and exits 0; RocksDB then opens cleanly with every write.
 */
class SigtermIT {

    @Test
    void gracefulShutdownOnSigterm(@TempDir Path dir) throws Exception {
        int port = TestNode.freePort();
        Path data = dir.resolve("data");
        try (NodeProcess node = NodeProcess.start(
                dir,
                "node",
                port,
                List.of("--port", String.valueOf(port), "--data-dir", data.toString(), "--shutdown-grace", "30s"),
                Map.of())) {
            node.awaitReady();
            for (int i = 0; i < 100; i++) {
                assertThat(node.put("/v0/entity?id=k" + i, ("v" + i).getBytes(StandardCharsets.UTF_8))
                                .statusCode())
                        .isEqualTo(201);
            }
            CompletableFuture<HttpResponse<byte[]>> inFlight = CompletableFuture.supplyAsync(() -> {
                try {
                    return node.get("/v0/admin/profile?event=wall&duration=2s");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> node.metric("dht_profile_running") == 1.0);

            node.terminate();

            HttpResponse<byte[]> answered = inFlight.get();
            assertThat(answered.statusCode())
                    .as("the in-flight request finished")
                    .isEqualTo(200);
            assertThat(node.awaitExit(Duration.ofSeconds(60))).as("exit code").isZero();
            assertThat(node.output())
                    .contains("shutting down")
                    .contains("storage closed")
                    .contains("node stopped");
        }
        try (RocksStore store = RocksStore.open(data, StorageOptions.node(4 << 20, 8 << 20))) {
            for (int i = 0; i < 100; i++) {
                Record r = store.get(("k" + i).getBytes(StandardCharsets.UTF_8));
                assertThat(r).isNotNull();
                assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("v" + i);
            }
        }
    }
}
