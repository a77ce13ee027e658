package dev.dht.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class HealthServerTest {
    @Test
    void healthReadinessAndPrometheusMetrics() throws Exception {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Counter.builder("dht.operator.writes")
                .tag("kind", "StatefulSet")
                .register(registry)
                .increment();
        var notReady = new AtomicReference<>("operator not started");
        try (var server = HealthServer.start(0, notReady::get, registry);
                var http = HttpClient.newHttpClient()) {
            assertThat(get(http, server, "/healthz")).isEqualTo("200 ok\n");
            assertThat(get(http, server, "/readyz")).isEqualTo("503 operator not started\n");
            notReady.set("");
            assertThat(get(http, server, "/readyz")).isEqualTo("200 ok\n");
            assertThat(get(http, server, "/metrics"))
                    .startsWith("200 ")
                    .contains("dht_operator_writes_total{kind=\"StatefulSet\"} 1.0");
        }
    }

    static String get(HttpClient http, HealthServer server, String path) throws Exception {
        var response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.body();
    }
}
