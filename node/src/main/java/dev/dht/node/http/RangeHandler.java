package dev.dht.node.http;

/** Serves /v0/entities: answers with {@link Responder#stream} (or an error). Same threading as EntityHandler. */
public interface RangeHandler {
    void handle(RangeRequest request, Responder responder);
}
