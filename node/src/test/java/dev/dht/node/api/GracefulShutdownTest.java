package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.support.HoldingHandler;
import dev.dht.node.support.RawHttp;
import dev.dht.node.support.TestNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shutdown drains (with a drain time), stops accepting, refuses new work on open connections, lets the in-flight
 * request finish, then closes RocksDB so that it reopens with the data. (SigtermIT checks the same through a real
 * SIGTERM to the jar.)
 */
class GracefulShutdownTest {

    @Test
    void inFlightRequestFinishesNewOnesAreRefused(@TempDir Path dir) throws Exception {
        AtomicReference<HoldingHandler> holder = new AtomicReference<>();
        TestNode node = TestNode.start(
                dir,
                c -> c.withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(30)),
                (store, clock) -> {
                    HoldingHandler h = new HoldingHandler(store, clock);
                    holder.set(h);
                    return h;
                });
        int port = node.port();
        try (RawHttp inFlight = new RawHttp(port);
                RawHttp idle = new RawHttp(port)) {
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

    /**
     * With a drain time, a stopping node first keeps serving: /v0/status says 503 (probes take it out) while new
     * connections are still accepted and served, and every answer to a client ends its connection, so that a
     * kept-alive client reconnects elsewhere instead of meeting a closed socket. Connections on the member port
     * keep going. Only then does it stop listening; what it acknowledged meanwhile is stored.
     */
    @Test
    void aDrainAnswersEveryRequestAndClosesEachClientConnectionAfterItsAnswer(@TempDir Path dir) throws Exception {
        TestNode node = TestNode.start(dir, c -> c.withDrainTime(Duration.ofSeconds(3)));
        int port = node.port();
        CompletableFuture<Void> shutdown;
        try (RawHttp kept = new RawHttp(port);
                RawHttp member = new RawHttp(node.node().server().memberPort())) {
            kept.send("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(kept.read().headers().get("connection")).isEqualToIgnoringCase("keep-alive");
            member.send("GET /v0/entity?id=during-drain HTTP/1.1\r\nHost: x\r\nX-Dht-Internal: 1\r\n"
                    + "X-Dht-Call: 6\r\n\r\n");
            assertThat(member.read().status()).as("not written yet").isEqualTo(404);

            shutdown = CompletableFuture.runAsync(node::close);
            await().atMost(Duration.ofSeconds(10)).until(() -> statusOnNewConnection(port) == 503);
            assertThat(shutdown).as("still draining").isNotDone();

            kept.send("PUT /v0/entity?id=during-drain HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
            RawHttp.Reply served = kept.read();
            assertThat(served.status()).as("served in full, not refused").isEqualTo(201);
            assertThat(served.headers().get("connection")).isEqualToIgnoringCase("close");
            assertThat(kept.drainUntilClosed())
                    .as("the server ends the connection after the answer")
                    .isEmpty();

            try (RawHttp late = new RawHttp(port)) {
                late.send("PUT /v0/entity?id=late HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\ndef");
                RawHttp.Reply r = late.read();
                assertThat(r.status())
                        .as("a new connection during the drain is served")
                        .isEqualTo(201);
                assertThat(r.headers().get("connection")).isEqualToIgnoringCase("close");
            }

            member.send("GET /v0/entity?id=during-drain HTTP/1.1\r\nHost: x\r\nX-Dht-Internal: 1\r\n"
                    + "X-Dht-Call: 7\r\n\r\n");
            RawHttp.Reply call = member.read();
            assertThat(call.status()).isEqualTo(200);
            assertThat(call.headers().get("connection"))
                    .as("a member keeps its connection on the member port")
                    .isEqualToIgnoringCase("keep-alive");

            await().atMost(Duration.ofSeconds(30)).until(() -> !accepts(port));
            shutdown.get(30, TimeUnit.SECONDS);
        }
        try (TestNode reopened = TestNode.start(dir)) {
            assertThat(reopened.get("/v0/entity?id=during-drain").body()).isEqualTo("abc".getBytes());
            assertThat(reopened.get("/v0/entity?id=late").body()).isEqualTo("def".getBytes());
        }
    }

    private static int statusOnNewConnection(int port) throws IOException {
        try (RawHttp http = new RawHttp(port)) {
            http.send("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");
            return http.read().status();
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
