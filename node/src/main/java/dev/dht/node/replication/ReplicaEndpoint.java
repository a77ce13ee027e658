package dev.dht.node.replication;

import dev.dht.node.api.InlineWrite;
import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.EntityRequest;
import dev.dht.node.http.Headers;
import dev.dht.node.http.InlineResponder;
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
            case GET -> answerRead(store.get(request.key()), responder);
            case PUT -> write(request, Record.value(request.timestamp(), request.body()), Responses.CREATED,
                    responder);
            case DELETE -> write(request, Record.tombstone(request.timestamp()), Responses.ACCEPTED, responder);
        }
    }

    /**
     * The same on the selector thread, without waiting: a read from memory (declined if only the disk has it);
     * a write joins the pass's write group and is answered when it is applied at the end of the pass (or goes to
     * a worker then, if it would have had to wait). Returns false when declined at once.
     */
    public boolean tryInline(EntityRequest request, InlineResponder responder) {
        if (request.clock() > 0) {
            clock.observe(request.clock());
        }
        switch (request.op()) {
            case GET -> {
                Record r = store.getIfInMemory(request.key());
                if (r == Store.NOT_IN_MEMORY) {
                    return false;
                }
                answerRead(r, responder);
                return true;
            }
            case PUT -> {
                return tryWrite(request, Record.value(request.timestamp(), request.body()), Responses.CREATED,
                        responder);
            }
            default -> {
                return tryWrite(request, Record.tombstone(request.timestamp()), Responses.ACCEPTED, responder);
            }
        }
    }

    private void answerRead(Record r, Responder responder) {
        Response response = r == null ? Responses.empty(Responses.NOT_FOUND) : new Response(Responses.OK, r.encoded());
        responder.send(Protocol.withClock(response, clock.now()));
    }

    private boolean tryWrite(EntityRequest request, Record record, String stored, InlineResponder responder) {
        clock.observe(record.timestamp());
        return store.applyAtEndOfPass(request.key(), record, new InlineWrite(responder) {
            @Override
            public void applied() {
                responder.send(Protocol.withClock(Responses.empty(stored), clock.now()));
            }

            @Override
            public void notNewer(Record current) {
                answerNotStored(record, current, stored, responder);
            }
        });
    }

    private void write(EntityRequest request, Record record, String stored, Responder responder) {
        clock.observe(record.timestamp());
        if (store.applyIfNewer(request.key(), record)) {
            responder.send(Protocol.withClock(Responses.empty(stored), clock.now()));
        } else {
            answerNotStored(record, store.get(request.key()), stored, responder);
        }
    }

    /** Already there (a repeated hint or repair): stored; a newer record: 409 with its timestamp. */
    private void answerNotStored(Record record, Record current, String stored, Responder responder) {
        Response response;
        if (current == null || current.equals(record)) {
            response = Responses.empty(stored);
        } else {
            response = Responses.empty(Responses.CONFLICT);
            response.addHeader(Headers.TIMESTAMP + ": " + current.timestamp());
        }
        responder.send(Protocol.withClock(response, clock.now()));
    }
}
