package dev.dht.node.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.TestNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every PUT the node acknowledged (201) before a SIGKILL is there after a restart: the WAL is written first. */
class KillNineIT {

    @Test
    void acknowledgedWritesSurviveKill9(@TempDir Path dir) throws Exception {
        int port = TestNode.freePort();
        Path data = dir.resolve("data");
        List<String> args = List.of("--port", String.valueOf(port), "--data-dir", data.toString());
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        ExecutorService writers = Executors.newFixedThreadPool(8);
        try (NodeProcess node = NodeProcess.start(dir, "node-before-kill", port, args, Map.of())) {
            node.awaitReady();
            List<Future<?>> jobs = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                int writer = w;
                jobs.add(writers.submit(() -> {
                    for (int i = 0; ; i++) {
                        String id = "w" + writer + "-" + i;
                        try {
                            HttpResponse<Void> r = node.http()
                                    .send(
                                            HttpRequest.newBuilder(node.uri("/v0/entity?id=" + id))
                                                    .timeout(Duration.ofSeconds(5))
                                                    .PUT(HttpRequest.BodyPublishers.ofString("value-" + id))
                                                    .build(),
                                            HttpResponse.BodyHandlers.discarding());
                            if (r.statusCode() == 201) {
                                acknowledged.add(id);
                            }
                        } catch (Exception e) {
                            return; // the node is gone
                        }
                    }
                }));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= 5000);
            node.kill9(); // mid-load: writes are in flight right now
            for (Future<?> job : jobs) {
                job.get(30, TimeUnit.SECONDS);
            }
        } finally {
            writers.shutdownNow();
        }
        assertThat(acknowledged.size()).isGreaterThanOrEqualTo(5000);

        try (NodeProcess restarted = NodeProcess.start(dir, "node-after-kill", port, args, Map.of())) {
            restarted.awaitReady();
            List<String> missing = new ArrayList<>();
            for (String id : acknowledged) {
                HttpResponse<byte[]> r = restarted.get("/v0/entity?id=" + id);
                if (r.statusCode() != 200 || !new String(r.body(), StandardCharsets.UTF_8).equals("value-" + id)) {
                    missing.add(id + " -> " + r.statusCode());
                }
            }
            assertThat(missing).as("acknowledged writes lost by kill -9").isEmpty();
        }
    }
}
