package dev.dht.node.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A member's release and cluster feature level (docs/upgrading.md), read and raised as the operator does. */
public final class FeatureLevels {
    private FeatureLevels() {}

    /** POST /v0/admin/feature-level {"level": level} (loopback: admin rights); fails the test unless it is taken. */
    public static void raise(NodeProcess node, int level) throws Exception {
        HttpResponse<byte[]> r = node.send(
                HttpRequest.newBuilder(node.uri("/v0/admin/feature-level"))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"level\": " + level + "}")),
                Duration.ofSeconds(10));
        assertThat(r.statusCode())
                .as(new String(r.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
    }

    /** The release a member names on /v0/status (Dht-Release), "" when it names none (releases before 0.2.0). */
    public static String release(NodeProcess node) throws Exception {
        return node.get("/v0/status").headers().firstValue("Dht-Release").orElse("");
    }

    /** The feature level a member names on /v0/status (Dht-Feature-Level), 0 when it names none. */
    public static int level(NodeProcess node) throws Exception {
        return node.get("/v0/status")
                .headers()
                .firstValue("Dht-Feature-Level")
                .map(Integer::parseInt)
                .orElse(0);
    }
}
