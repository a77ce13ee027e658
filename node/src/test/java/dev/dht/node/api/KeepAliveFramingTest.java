package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.support.RawHttp;
import dev.dht.node.support.TestNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keep-alive connections used one request at a time, as ordinary clients (the JDK's, the course's) use them, by
 * several threads at once: every request gets exactly one answer, framed by its Content-Length, and not one byte
 * follows the last answer. Raw sockets, so no client library can hide or invent a framing error (the JDK client
 * has a pooled-connection race of its own: {@link dev.dht.node.support.JdkHttp}).
 */
class KeepAliveFramingTest {

    @Test
    void acceptedConnectionsSendWithoutNaglesDelay(@TempDir Path dir) throws Exception {
        // With Nagle on, an answer written while an earlier one on the connection is unacknowledged waits for the
        // peer's delayed ACK (~40 ms): pipelined node-to-node answers stalled that way on JDK NIO sockets.
        try (TestNode node = TestNode.start(dir);
                RawHttp raw = new RawHttp(node.port())) {
            raw.send("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(200); // the connection is a session now
            List<one.nio.net.Socket> open = node.node().server().openSockets();
            assertThat(open).isNotEmpty();
            assertThat(open)
                    .allSatisfy(s -> assertThat(s.getNoDelay())
                            .as("TCP_NODELAY of %s", s)
                            .isTrue());
        }
    }

    @Test
    void everyRequestGetsExactlyOneAnswer(@TempDir Path dir) throws Exception {
        int connections = 8;
        int requestsPerConnection = 600;
        try (TestNode node = TestNode.start(dir)) {
            ExecutorService pool = Executors.newFixedThreadPool(connections);
            List<Future<Integer>> done = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                int connection = c;
                done.add(pool.submit(() -> {
                    int answered = 0;
                    try (RawHttp raw = new RawHttp(node.port())) {
                        for (int i = 0; i < requestsPerConnection; i++) {
                            String id = "c" + connection + "-" + (i / 4 % 20); // PUT, PUT, GET, DELETE of one key
                            String value = "v" + i;
                            int expected;
                            switch (i % 4) {
                                case 0, 1 -> {
                                    raw.send("PUT /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\nContent-Length: "
                                            + value.length() + "\r\n\r\n" + value);
                                    expected = 201;
                                }
                                case 2 -> {
                                    raw.send("GET /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\n\r\n");
                                    expected = 200; // the second PUT, just before on this connection
                                }
                                default -> {
                                    raw.send("DELETE /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\n\r\n");
                                    expected = 202;
                                }
                            }
                            RawHttp.Reply reply = raw.read(); // throws unless exactly framed
                            assertThat(reply.status())
                                    .as("request %d of connection %d", i, connection)
                                    .isEqualTo(expected);
                            if (expected == 200) {
                                assertThat(reply.bodyText()).isEqualTo("v" + (i - 1));
                            }
                            answered++;
                        }
                        raw.send("GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                        assertThat(raw.read().status()).isEqualTo(200);
                        assertThat(raw.drainUntilClosed())
                                .as("bytes after the last answer")
                                .isEmpty();
                    }
                    return answered;
                }));
            }
            int answered = 0;
            for (Future<Integer> f : done) {
                answered += f.get(120, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(answered).isEqualTo(connections * requestsPerConnection);
        }
    }
}
