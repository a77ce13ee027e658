package dev.dht.node.cluster;

import static org.awaitility.Awaitility.await;

import dev.dht.node.json.Json;
import dev.dht.node.support.NodeProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * The operator's side of backups and restores, for node-level tests: the admin calls a test makes on each member
 * (docs/operations.md, "Back up and restore"), as JSON.
 */
final class BackupAdmin {
    private BackupAdmin() {}

    record Answer(int status, Map<String, Object> json) {
        @Override
        public String toString() {
            return status + " " + json;
        }
    }

    static Answer get(NodeProcess node, String path) {
        return call(node, HttpRequest.newBuilder(node.uri(path)).GET());
    }

    static Answer post(NodeProcess node, String path, Map<String, Object> body) {
        return call(
                node,
                HttpRequest.newBuilder(node.uri(path))
                        .POST(HttpRequest.BodyPublishers.ofString(Json.write(body), StandardCharsets.UTF_8)));
    }

    private static Answer call(NodeProcess node, HttpRequest.Builder request) {
        try {
            HttpResponse<byte[]> r =
                    node.send(request.header("Content-Type", "application/json"), Duration.ofMinutes(5));
            String text = new String(r.body(), StandardCharsets.UTF_8);
            Map<String, Object> json;
            try {
                json = Json.parseObject(text);
            } catch (IllegalArgumentException e) {
                json = Map.of("text", text);
            }
            return new Answer(r.statusCode(), json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits until the node's backup (or restore) status reaches phase; fails at once on "failed". */
    static Answer awaitPhase(NodeProcess node, String path, String phase, Duration limit) {
        Answer[] last = new Answer[1];
        await().atMost(limit).pollInterval(Duration.ofMillis(250)).until(() -> {
            Answer a = get(node, path);
            last[0] = a;
            if ("failed".equals(a.json().get("phase"))) {
                throw new AssertionError("failed on port " + node.port() + ": " + a);
            }
            return phase.equals(a.json().get("phase"));
        });
        return last[0];
    }

    @SuppressWarnings("unchecked")
    static long nested(Answer a, String object, String field) {
        return ((Number) ((Map<String, Object>) a.json().get(object)).get(field)).longValue();
    }
}
