package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.support.HoldingHandler;
import dev.dht.node.support.TestNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A full queue answers 503 at once; nothing waits in an unbounded queue. Made deterministic with held requests. */
class OverloadTest {

    @Test
    void fullQueueAnswers503AtOnceAndTheNodeRecovers(@TempDir Path dir) throws Exception {
        AtomicReference<HoldingHandler> holder = new AtomicReference<>();
        try (TestNode node = TestNode.start(dir, c -> c.withPool(1, 1), (store, clock) -> {
            HoldingHandler h = new HoldingHandler(store, clock);
            holder.set(h);
            return h;
        })) {
            HoldingHandler handler = holder.get();
            // 1: occupies the only worker
            CompletableFuture<HttpResponse<byte[]>> first = putAsync(node, "hold-1");
            handler.awaitEntered(1);
            // 2: waits in the queue (capacity 1); /metrics runs on the admin pool, so it still answers
            CompletableFuture<HttpResponse<byte[]>> second = putAsync(node, "queued");
            await().atMost(Duration.ofSeconds(10)).until(() -> node.metric("dht_request_queue_depth") == 1.0);
            // 3: nowhere to go -> 503 right away, with a reason
            long t0 = System.nanoTime();
            HttpResponse<byte[]> rejected = node.get("/v0/entity?id=any");
            assertThat(rejected.statusCode()).isEqualTo(503);
            assertThat(new String(rejected.body(), StandardCharsets.UTF_8)).contains("overloaded");
            assertThat(Duration.ofNanos(System.nanoTime() - t0))
                    .as("not queued behind the held request")
                    .isLessThan(Duration.ofSeconds(5));
            assertThat(node.metric("dht_requests_rejected_total")).isEqualTo(1.0);
            // probes are answered on the selector and never queue behind load
            assertThat(node.get("/v0/status").statusCode()).isEqualTo(200);
            assertThat(first).isNotDone();
            assertThat(second).isNotDone();

            handler.releaseAll();
            assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
            assertThat(second.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
            assertThat(node.get("/v0/entity?id=queued").statusCode()).isEqualTo(200);
            assertThat(node.metric("dht_request_queue_depth")).isZero();
        }
    }

    private static CompletableFuture<HttpResponse<byte[]>> putAsync(TestNode node, String id) {
        return TestNode.jdk()
                .sendAsync(
                        HttpRequest.newBuilder(node.uri("/v0/entity?id=" + id))
                                .PUT(HttpRequest.BodyPublishers.ofString(id))
                                .timeout(Duration.ofSeconds(60))
                                .build(),
                        HttpResponse.BodyHandlers.ofByteArray());
    }
}
