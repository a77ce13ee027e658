package dev.dht.operator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * /healthz (the process is up), /readyz (the operator started and every informer is healthy) and
 * /metrics (Prometheus text format: JOSDK's reconcile metrics, the operator's writes, JVM).
 */
public final class HealthServer implements AutoCloseable {
    private final HttpServer server;

    private HealthServer(HttpServer server) {
        this.server = server;
    }

    /** Readiness as a message: empty when ready, else why not. */
    public static HealthServer start(int port, Supplier<String> notReadyReason, PrometheusMeterRegistry registry)
            throws IOException {
        var server = HttpServer.create(new InetSocketAddress(port), 0);
        server.createContext("/healthz", ex -> reply(ex, 200, "text/plain", "ok\n"));
        server.createContext("/readyz", ex -> {
            String reason = notReadyReason.get();
            reply(ex, reason.isEmpty() ? 200 : 503, "text/plain", reason.isEmpty() ? "ok\n" : reason + "\n");
        });
        server.createContext(
                "/metrics", ex -> reply(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            var t = new Thread(r, "health-http");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        return new HealthServer(server);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void reply(HttpExchange exchange, int code, String type, String body) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.sendResponseHeaders(code, bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
