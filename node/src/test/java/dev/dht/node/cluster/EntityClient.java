package dev.dht.node.cluster;

import dev.dht.node.support.NodeProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * {@code /v0/entity} on one node, as a client calls it. Every call waits at most 5 s, the course's client
 * timeout: a node that has not answered by then fails the test (with an exception) instead of hanging it.
 */
final class EntityClient {
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final NodeProcess node;

    EntityClient(NodeProcess node) {
        this.node = node;
    }

    Reply get(String id) {
        return send("GET", query(id, null), null);
    }

    Reply get(String id, int ack, int from) {
        return send("GET", query(id, ack + "/" + from), null);
    }

    Reply put(String id, byte[] value) {
        return send("PUT", query(id, null), value);
    }

    Reply put(String id, byte[] value, int ack, int from) {
        return send("PUT", query(id, ack + "/" + from), value);
    }

    Reply delete(String id) {
        return send("DELETE", query(id, null), null);
    }

    Reply delete(String id, int ack, int from) {
        return send("DELETE", query(id, ack + "/" + from), null);
    }

    private static String query(String id, String replicas) {
        return "/v0/entity?id=" + id + (replicas == null ? "" : "&replicas=" + replicas);
    }

    private Reply send(String method, String pathAndQuery, byte[] body) {
        HttpRequest.BodyPublisher publisher =
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body);
        try {
            HttpResponse<byte[]> r =
                    node.send(HttpRequest.newBuilder(node.uri(pathAndQuery)).method(method, publisher), TIMEOUT);
            return new Reply(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + pathAndQuery + " on port " + node.port() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
