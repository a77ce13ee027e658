package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.support.TestNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** POST /v0/admin/flush writes the memtables out to table files, and the data reads back from them. */
class FlushEndpointTest {

    private static long tableFiles(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".sst"))
                    .count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void flushWritesTableFilesAndLosesNothing(@TempDir Path dir) {
        try (TestNode node = TestNode.start(dir)) {
            for (int i = 0; i < 100; i++) {
                assertThat(node.put("/v0/entity?id=f" + i, ("v" + i).getBytes()).statusCode())
                        .isEqualTo(201);
            }
            assertThat(tableFiles(dir))
                    .as("a new store holds its writes in memtables")
                    .isZero();

            HttpResponse<byte[]> r = node.send(
                    HttpRequest.newBuilder(node.uri(FlushEndpoint.PATH)).POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("\"flushed\":true");
            assertThat(tableFiles(dir)).isPositive();
            for (int i = 0; i < 100; i += 7) {
                assertThat(new String(node.get("/v0/entity?id=f" + i).body(), StandardCharsets.UTF_8))
                        .isEqualTo("v" + i);
            }
            // an operation, not a status: GET is not one of its methods
            assertThat(node.get(FlushEndpoint.PATH).statusCode()).isEqualTo(405);
        }
    }
}
