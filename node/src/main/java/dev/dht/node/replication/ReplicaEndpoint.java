package dev.dht.node.replication;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.EntityRequest;
import dev.dht.node.http.Headers;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import one.nio.http.Response;

/**
 * Serves internal entity requests (another member coordinating) on the local store only: never coordinated
 * again. Merges the sender's clock and the record timestamp into the local clock, and answers with its own.
 */
public final class ReplicaEndpoint {
    private final Store store;
    private final HybridLogicalClock clock;

    public ReplicaEndpoint(Store store, HybridLogicalClock clock) {
        this.store = store;
        this.clock = clock;
    }

    public void handle(EntityRequest request, Responder responder) {
        if (request.clock() > 0) {
            clock.observe(request.clock());
        }
        switch (request.op()) {
            case GET -> {
                Record r = store.get(request.key());
                Response response = r == null ? Responses.empty(Responses.NOT_FOUND)
                        : new Response(Responses.OK, r.encoded());
                responder.send(Protocol.withClock(response, clock.now()));
            }
            case PUT -> write(request, Record.value(request.timestamp(), request.body()), Responses.CREATED,
                    responder);
            case DELETE -> write(request, Record.tombstone(request.timestamp()), Responses.ACCEPTED, responder);
        }
    }

    private void write(EntityRequest request, Record record, String stored, Responder responder) {
        clock.observe(record.timestamp());
        Response response;
        if (store.applyIfNewer(request.key(), record)) {
            response = Responses.empty(stored);
        } else {
            Record current = store.get(request.key());
            if (current == null || current.equals(record)) {
                response = Responses.empty(stored); // already there (a repeated hint or repair)
            } else {
                response = Responses.empty(Responses.CONFLICT);
                response.addHeader(Headers.TIMESTAMP + ": " + current.timestamp());
            }
        }
        responder.send(Protocol.withClock(response, clock.now()));
    }
}
