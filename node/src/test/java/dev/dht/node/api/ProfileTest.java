package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.support.TestNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The async-profiler endpoint, for real: it loads the native library from the node's dependencies. */
class ProfileTest {

    @Test
    void capturesAFlamegraphOneAtATime(@TempDir Path dir) throws Exception {
        Path profiles = dir.resolve("profiles");
        try (TestNode node = TestNode.start(dir.resolve("data"), c -> c.withProfileDir(profiles))) {
            CompletableFuture<HttpResponse<byte[]>> capture =
                    CompletableFuture.supplyAsync(() -> node.get("/v0/admin/profile?event=cpu&duration=2s"));
            await().atMost(Duration.ofSeconds(10)).until(() -> node.metric("dht_profile_running") == 1.0);
            HttpResponse<byte[]> second = node.get("/v0/admin/profile?event=alloc&duration=1s");
            assertThat(second.statusCode()).isEqualTo(409);
            assertThat(new String(second.body(), StandardCharsets.UTF_8)).contains("already");

            HttpResponse<byte[]> html = capture.get();
            assertThat(html.statusCode()).isEqualTo(200);
            assertThat(html.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
            assertThat(new String(html.body(), StandardCharsets.UTF_8))
                    .contains("<html")
                    .contains("dht node cpu profile");
            try (var files = Files.list(profiles)) {
                assertThat(files.map(p -> p.getFileName().toString()))
                        .anyMatch(n -> n.startsWith("cpu-") && n.endsWith(".html"));
            }

            HttpResponse<byte[]> collapsed = node.get("/v0/admin/profile?event=wall&duration=300ms&format=collapsed");
            assertThat(collapsed.statusCode()).isEqualTo(200);
            assertThat(new String(collapsed.body(), StandardCharsets.UTF_8)).containsPattern("(?m)^\\S.* \\d+$");
        }
    }

    @Test
    void theNextCaptureCanStartAsSoonAsTheAnswerArrives(@TempDir Path dir) {
        // A benchmark captures its events one after the other: the profiler is free before the answer is sent.
        try (TestNode node = TestNode.start(dir)) {
            for (String event : new String[] {"wall", "alloc", "wall", "lock", "wall"}) {
                HttpResponse<byte[]> answer =
                        node.get("/v0/admin/profile?event=" + event + "&duration=100ms&format=collapsed");
                assertThat(answer.statusCode())
                        .as(event + " right after the previous answer")
                        .isEqualTo(200);
            }
        }
    }

    @Test
    void badParametersAre400(@TempDir Path dir) {
        try (TestNode node = TestNode.start(dir)) {
            assertThat(node.get("/v0/admin/profile?event=gpu").statusCode()).isEqualTo(400);
            assertThat(node.get("/v0/admin/profile?duration=forever").statusCode())
                    .isEqualTo(400);
            assertThat(node.get("/v0/admin/profile?duration=1h").statusCode()).isEqualTo(400);
            assertThat(node.get("/v0/admin/profile?format=svg").statusCode()).isEqualTo(400);
            // the sampling interval is bounded both ways (0 had no lower bound)
            assertThat(node.get("/v0/admin/profile?duration=1s&interval=0ms").statusCode())
                    .isEqualTo(400);
            assertThat(node.get("/v0/admin/profile?duration=1s&interval=2s").statusCode())
                    .isEqualTo(400);
            assertThat(node.metric("dht_profile_running")).as("nothing started").isZero();
        }
    }
}
