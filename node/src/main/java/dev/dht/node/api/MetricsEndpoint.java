package dev.dht.node.api;

import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.Responder;
import dev.dht.node.metrics.NodeMetrics;
import one.nio.http.Request;
import one.nio.http.Response;

/** GET /metrics: the Prometheus text format. */
public final class MetricsEndpoint implements AdminHandler {
    private final NodeMetrics metrics;

    public MetricsEndpoint(NodeMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void handle(Request request, Responder responder) {
        Response response = new Response(Response.OK, metrics.scrape());
        response.addHeader("Content-Type: " + NodeMetrics.CONTENT_TYPE);
        responder.send(response);
    }

    /** Read-only, and what Prometheus scrapes from any pod: open on the client port. */
    @Override
    public boolean privileged(int method) {
        return false;
    }
}
