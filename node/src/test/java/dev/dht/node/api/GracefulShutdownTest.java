package dev.dht.node.api;

import dev.dht.node.support.HoldingHandler;
import dev.dht.node.support.RawHttp;
import dev.dht.node.support.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Shutdown stops accepting, refuses new work on open connections, lets the in-flight request finish, then closes
 * RocksDB so that it reopens with the data. (SigtermIT checks the same through a real SIGTERM to the jar.)
 */
class GracefulShutdownTest {

    @Test
    void inFlightRequestFinishesNewOnesAreRefused(@TempDir Path dir) throws Exception {
        AtomicReference<HoldingHandler> holder = new AtomicReference<>();
        TestNode node = TestNode.start(dir, c -> c.withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(30),
                Duration.ofSeconds(30)), (store, clock) -> {
            HoldingHandler h = new HoldingHandler(store, clock);
            holder.set(h);
            return h;
        });
        int port = node.port();
        try (RawHttp inFlight = new RawHttp(port); RawHttp idle = new RawHttp(port)) {
            idle.send("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(idle.read().status()).isEqualTo(200);

            inFlight.send("PUT /v0/entity?id=hold-me HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
            holder.get().awaitEntered(1);

            CompletableFuture<Void> shutdown = CompletableFuture.runAsync(node::close);
            await().atMost(Duration.ofSeconds(10)).until(() -> !accepts(port));
            assertThat(shutdown).isNotDone();

            // a kept-alive connection gets 503 + Connection: close instead of new work
            idle.send("GET /v0/entity?id=x HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Reply refused = idle.read();
            assertThat(refused.status()).isEqualTo(503);
            assertThat(refused.bodyText()).contains("shutting down");
            assertThat(refused.headers().get("connection")).isEqualToIgnoringCase("close");

            holder.get().releaseAll();
            RawHttp.Reply done = inFlight.read();
            assertThat(done.status()).as("the in-flight request is answered").isEqualTo(201);
            shutdown.get(30, TimeUnit.SECONDS);
        }
        try (TestNode reopened = TestNode.start(dir)) {
            assertThat(reopened.get("/v0/entity?id=hold-me").body()).isEqualTo("abc".getBytes());
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
