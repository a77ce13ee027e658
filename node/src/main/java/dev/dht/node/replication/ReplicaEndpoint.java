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
import dev.dht.node.topology.Learner;
import dev.dht.node.topology.TopologyHeader;
import java.util.concurrent.atomic.LongAdder;
import one.nio.http.Response;

/**
 * Serves internal entity requests (another member coordinating) on the local store only: never coordinated
 * again. Merges the sender's clock and the record timestamp into the local clock, and answers with its own clock
 * and topology state. A record stamped further ahead of the local wall clock than the clock's bound is refused
 * (400, nothing stored); a clock reading that far ahead is not merged (docs/security.md, "Clocks").
 *
 * <p>Fencing (docs/cluster.md, "Fencing and learning"): a request from an older topology state than this node
 * accepts is refused with 421 before it touches the store, so that a write coordinated without the target set of a
 * move can no longer be acknowledged once the move's barrier passed; a request from a newer state is served and
 * the sender is asked for that state.
 */
public final class ReplicaEndpoint {
    private final Store store;
    private final HybridLogicalClock clock;
    private final Topology topology;
    private final Learner learner;
    private final ReadGate readGate;
    private final LongAdder refused = new LongAdder();

    /** @param readGate closed while this node rebuilds: reads are answered 503, a missing replica */
    public ReplicaEndpoint(
            Store store, HybridLogicalClock clock, Topology topology, Learner learner, ReadGate readGate) {
        this.readGate = readGate;
        this.store = store;
        this.clock = clock;
        this.topology = topology;
        this.learner = learner;
    }

    /** Requests refused as coming from an older topology state. */
    public long refused() {
        return refused.sum();
    }

    /**
     * Checks the sender's topology state against this node's; answers 421 and returns false if the request is
     * refused. A request without the header (a tool, a test) is served.
     */
    private boolean admitted(EntityRequest request, Responder responder) {
        String header = request.topology();
        if (header == null) {
            return true;
        }
        Topology.View view = topology.view();
        long theirs = TopologyHeader.version(header);
        if (!view.decided()) {
            if (theirs != TopologyHeader.NONE) {
                learner.newerState(TopologyHeader.sender(header), theirs);
            }
            return true;
        }
        long mine = view.version();
        if (theirs > mine) {
            learner.newerState(TopologyHeader.sender(header), theirs);
            return true;
        }
        if (view.admits(theirs) && (theirs < mine || sameState(header, view.header()))) {
            return true;
        }
        refused.increment();
        Response response = Responses.text(
                Responses.MISDIRECTED,
                theirs == mine
                        ? "topology " + TopologyHeader.state(header) + " differs from this node's " + view.header()
                        : "topology " + TopologyHeader.state(header) + " is older than this node accepts (it is at "
                                + view.header() + "); learn the newer state and retry");
        responder.send(Protocol.withClock(response, clock.now(), view.header()));
        return false;
    }

    /** Whether a request header (state, space, sender) carries exactly this state. */
    private static boolean sameState(String requestHeader, String state) {
        return requestHeader.startsWith(state)
                && (requestHeader.length() == state.length() || requestHeader.charAt(state.length()) == ' ');
    }

    private Response answered(Response response) {
        response.addHeader(Headers.CLOCK + ": " + clock.now());
        String line = topology.view().headerLine();
        if (line != null) {
            response.addHeader(line);
        }
        return response;
    }

    public void handle(EntityRequest request, Responder responder) {
        if (request.clock() > 0) {
            clock.observe(request.clock());
        }
        if (!admitted(request, responder)) {
            return;
        }
        switch (request.op()) {
            case GET -> {
                if (!refusedRead(responder)) {
                    answerRead(store.get(request.key()), responder);
                }
            }
            case PUT -> write(request, Record.value(request.timestamp(), request.body()), Responses.CREATED, responder);
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
        if (!admitted(request, responder)) {
            return true;
        }
        switch (request.op()) {
            case GET -> {
                if (refusedRead(responder)) {
                    return true;
                }
                Record r = store.getIfInMemory(request.key());
                if (r == Store.NOT_IN_MEMORY) {
                    return false;
                }
                answerRead(r, responder);
                return true;
            }
            case PUT -> {
                return tryWrite(
                        request, Record.value(request.timestamp(), request.body()), Responses.CREATED, responder);
            }
            default -> {
                return tryWrite(request, Record.tombstone(request.timestamp()), Responses.ACCEPTED, responder);
            }
        }
    }

    /** While this node rebuilds its copy may miss acknowledged writes: 503, the coordinator counts a failure. */
    private boolean refusedRead(Responder responder) {
        String why = readGate.notServing();
        if (why == null) {
            return false;
        }
        responder.send(answered(Responses.text(Responses.SERVICE_UNAVAILABLE, "this node " + why)));
        return true;
    }

    private void answerRead(Record r, Responder responder) {
        Response response = r == null ? Responses.empty(Responses.NOT_FOUND) : new Response(Responses.OK, r.encoded());
        responder.send(answered(response));
    }

    private boolean tryWrite(EntityRequest request, Record record, String stored, InlineResponder responder) {
        if (!clock.observe(record.timestamp())) {
            refuseTimestamp(record, responder);
            return true;
        }
        return store.applyAtEndOfPass(request.key(), record, new InlineWrite(responder) {
            @Override
            public void applied() {
                responder.send(answered(Responses.empty(stored)));
            }

            @Override
            public void notNewer(Record current) {
                answerNotStored(record, current, stored, responder);
            }
        });
    }

    private void write(EntityRequest request, Record record, String stored, Responder responder) {
        if (!clock.observe(record.timestamp())) {
            refuseTimestamp(record, responder);
            return;
        }
        if (store.applyIfNewer(request.key(), record)) {
            responder.send(answered(Responses.empty(stored)));
        } else {
            answerNotStored(record, store.get(request.key()), stored, responder);
        }
    }

    private void refuseTimestamp(Record record, Responder responder) {
        responder.send(answered(Responses.text(
                Responses.BAD_REQUEST,
                "record timestamp "
                        + HybridLogicalClock.format(record.timestamp()) + " is more than " + clock.maxAheadMillis()
                        + " ms ahead of this node's clock (--max-clock-ahead): not stored")));
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
        responder.send(answered(response));
    }
}
