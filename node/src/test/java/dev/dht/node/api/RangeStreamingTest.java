package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.support.RawHttp;
import dev.dht.node.support.TestNode;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Range responses are produced as the client reads, whatever their size, and a stalled client is dropped. */
class RangeStreamingTest {

    private static void fill(TestNode node, int records, int valueSize) {
        List<CompletableFuture<HttpResponse<Void>>> puts = new ArrayList<>();
        byte[] value = new byte[valueSize];
        for (int i = 0; i < records; i++) {
            value[0] = (byte) i;
            puts.add(TestNode.jdk()
                    .sendAsync(
                            HttpRequest.newBuilder(node.uri("/v0/entity?id=" + key(i)))
                                    .PUT(HttpRequest.BodyPublishers.ofByteArray(value.clone()))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding()));
            if (puts.size() == 64) {
                puts.forEach(f -> assertThat(f.join().statusCode()).isEqualTo(201));
                puts.clear();
            }
        }
        puts.forEach(f -> assertThat(f.join().statusCode()).isEqualTo(201));
    }

    private static String key(int i) {
        return String.format("r%06d", i);
    }

    @Test
    void largeRangeArrivesCompleteAndInOrder(@TempDir Path dir) throws Exception {
        try (TestNode node = TestNode.start(dir)) {
            fill(node, 3000, 1000);
            // one value larger than the writer's 64 KiB buffer, in the middle of the range
            byte[] huge = new byte[300_000];
            huge[299_999] = 7;
            assertThat(node.put("/v0/entity?id=" + key(1500) + "x", huge).statusCode())
                    .isEqualTo(201);

            try (RawHttp raw = new RawHttp(node.port())) {
                raw.send("GET /v0/entities?start=r HTTP/1.1\r\nHost: x\r\n\r\n");
                RawHttp.Reply reply = raw.read();
                assertThat(reply.chunks()).hasSize(3001);
                List<String> keys = new ArrayList<>();
                for (byte[] chunk : reply.chunks()) {
                    int nl = IntStream.range(0, chunk.length)
                            .filter(i -> chunk[i] == '\n')
                            .findFirst()
                            .orElseThrow();
                    keys.add(new String(chunk, 0, nl, StandardCharsets.UTF_8));
                }
                assertThat(keys).isSorted().doesNotHaveDuplicates();
                assertThat(keys.get(1501)).isEqualTo(key(1500) + "x");
                assertThat(reply.chunks().get(1501)).hasSize(key(1500).length() + 2 + huge.length);
                assertThat(reply.chunks().get(0)).hasSize(key(0).length() + 1 + 1000);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> node.metric("dht_range_streams_open") == 0.0);
        }
    }

    /**
     * A client that asks for 32 MiB and reads nothing: the node keeps one open iterator and a bounded buffer
     * (not the whole range), keeps serving others, and drops the connection after the send timeout, which
     * closes the iterator.
     */
    @Test
    void stalledReaderIsDroppedAndItsIteratorClosed(@TempDir Path dir) throws Exception {
        try (TestNode node = TestNode.start(
                dir, c -> c.withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(10)))) {
            int records = 8000;
            int valueSize = 4096;
            fill(node, records, valueSize);
            long fullSize = (long) records * (valueSize + 8);

            try (RawHttp raw = new RawHttp(node.port())) {
                raw.socket().setReceiveBufferSize(64 * 1024);
                raw.send("GET /v0/entities?start=r HTTP/1.1\r\nHost: x\r\n\r\n");
                // The iterator stays open while the client does not read: the range is produced lazily.
                await().atMost(Duration.ofSeconds(10)).until(() -> node.metric("dht_range_streams_open") == 1.0);
                assertThat(node.get("/v0/status").statusCode()).isEqualTo(200);
                assertThat(node.get("/v0/entity?id=" + key(5)).statusCode()).isEqualTo(200);

                // Dropped after the send timeout; the iterator is closed with the session.
                await().atMost(Duration.ofSeconds(30)).until(() -> node.metric("dht_range_streams_open") == 0.0);
                ByteArrayOutputStream received = new ByteArrayOutputStream();
                received.write(raw.drainUntilClosed());
                assertThat((long) received.size())
                        .as("only what the socket buffers held")
                        .isLessThan(fullSize / 2);
                assertThat(received.toString(StandardCharsets.ISO_8859_1)).doesNotEndWith("0\r\n\r\n");
            }
            // the node is fine afterwards
            HttpResponse<byte[]> after = node.get("/v0/entities?start=" + key(7990));
            assertThat(after.statusCode()).isEqualTo(200);
            assertThat(after.body()).hasSize(10 * (key(0).length() + 1 + valueSize));
        }
    }

    @Test
    void clientThatDisconnectsMidStreamReleasesTheIterator(@TempDir Path dir) throws Exception {
        try (TestNode node = TestNode.start(dir)) {
            fill(node, 4000, 4096);
            try (RawHttp raw = new RawHttp(node.port())) {
                raw.socket().setReceiveBufferSize(64 * 1024);
                raw.send("GET /v0/entities?start=r HTTP/1.1\r\nHost: x\r\n\r\n");
                await().atMost(Duration.ofSeconds(10)).until(() -> node.metric("dht_range_streams_open") == 1.0);
            } // closed without reading
            await().atMost(Duration.ofSeconds(20)).until(() -> node.metric("dht_range_streams_open") == 0.0);
        }
    }
}
