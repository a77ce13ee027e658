package dev.dht.node.movement;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.BadRequestException;
import dev.dht.node.http.Headers;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.json.Json;
import dev.dht.node.replication.Protocol;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import dev.dht.node.topology.TopologyHeader;
import dev.dht.node.topology.TopologyManager;
import dev.dht.node.topology.TopologyState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import one.nio.http.Request;
import one.nio.http.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of moves (docs/cluster.md, "Endpoints"):
 * <pre>
 *   GET  /v0/internal/topology this node's state and progress (members poll it on the member port; the poll's
 *                              header teaches it)
 *   GET  /v0/admin/topology    the same report, read-only, on the client port (nothing is learnt from it)
 *   GET  /v0/admin/movement    the operator's view: idle or moving, and how far (client port, read-only)
 *   POST /v0/admin/cleanup     drop what this node does not hold, as soon as it is safe (admin)
 *   PUT  /v0/internal/records  records streamed by a member of S (member port, on a worker: it writes)
 * </pre>
 */
public final class MovementEndpoints {
    private static final Logger log = LoggerFactory.getLogger(MovementEndpoints.class);
    public static final String TOPOLOGY = TopologyManager.TOPOLOGY_PATH;
    public static final String TOPOLOGY_REPORT = "/v0/admin/topology";
    public static final String MOVEMENT = "/v0/admin/movement";
    public static final String CLEANUP = "/v0/admin/cleanup";
    public static final String RECORDS = Streamer.RECORDS_PATH;

    private final TopologyManager manager;
    private final MovementStatus status;
    private final MovementStats stats;
    private final MovementLoop loop;
    private final Store store;
    private final HybridLogicalClock clock;

    /** @param loop null on a fixed member list */
    public MovementEndpoints(
            TopologyManager manager,
            MovementStatus status,
            MovementStats stats,
            MovementLoop loop,
            Store store,
            HybridLogicalClock clock) {
        this.manager = manager;
        this.status = status;
        this.stats = stats;
        this.loop = loop;
        this.store = store;
        this.clock = clock;
    }

    public Map<String, AdminHandler> handlers() {
        Map<String, AdminHandler> m = new LinkedHashMap<>();
        m.put(TOPOLOGY, this::topology);
        m.put(TOPOLOGY_REPORT, AdminHandler.status((request, responder) -> report(responder)));
        m.put(MOVEMENT, AdminHandler.status(this::movement));
        m.put(CLEANUP, new AdminHandler() {
            @Override
            public void handle(Request request, Responder responder) {
                cleanup(responder);
            }

            @Override
            public boolean allows(int method) {
                return method == Request.METHOD_POST;
            }

            @Override
            public String allowed() {
                return "POST";
            }
        });
        m.put(RECORDS, AdminHandler.writing(this::records));
        return m;
    }

    /** Learns from the caller's header, if it carries a newer state. */
    private void observe(Request request) {
        String header = request.getHeader(Headers.TOPOLOGY + ":");
        if (header != null) {
            manager.newerState(TopologyHeader.sender(header), TopologyHeader.version(header));
        }
        long theirClock = Headers.longValue(request, Headers.CLOCK, 0);
        if (theirClock > 0) {
            clock.observe(theirClock);
        }
    }

    private Response answer(Response response) {
        return Protocol.withClock(response, clock.now(), manager.stateHeader());
    }

    private void topology(Request request, Responder responder) {
        observe(request);
        // a poller names the state it holds: when it is this node's, it gets the brief report (no member lists)
        responder.send(
                answer(Responses.json(Responses.OK, Json.write(manager.reportJson(request.getParameter("known="))))));
    }

    private void report(Responder responder) {
        responder.send(
                answer(Responses.json(Responses.OK, Json.write(manager.report().toJson()))));
    }

    private void movement(Request request, Responder responder) {
        responder.send(answer(Responses.json(Responses.OK, Json.write(status.toJson()))));
    }

    private void cleanup(Responder responder) {
        TopologyState s = manager.state();
        if (loop == null || s == null || s.moving()) {
            responder.send(
                    answer(
                            Responses.json(
                                    Responses.CONFLICT,
                                    Json.write(
                                            Map.of(
                                                    "error",
                                                    loop == null
                                                            ? "this node has a fixed member list: nothing ever moves, nothing to clean up"
                                                            : "a move is in progress: the cleanup runs after it, once every member finalized")))));
            return;
        }
        loop.requestCleanup();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scheduled", true);
        m.put("note", "runs once every member of the last move has finalized it; see /v0/admin/movement");
        responder.send(answer(Responses.json(Responses.ACCEPTED, Json.write(m))));
    }

    private void records(Request request, Responder responder) throws BadRequestException {
        if (request.getHeader(Headers.INTERNAL + ":") == null) {
            throw new BadRequestException(RECORDS + " is for members streaming a move (X-Dht-Internal)");
        }
        observe(request);
        byte[] body = request.getBody() == null ? new byte[0] : request.getBody();
        RecordBatch.Decoded batch;
        try {
            batch = RecordBatch.decode(body);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("not a record batch: " + e.getMessage());
        }
        // A record stamped beyond the clock's bound is left out (counted by the clock): a move must not stall on
        // it, and it must not be stored (docs/security.md, "Clocks").
        List<byte[]> keys = new ArrayList<>(batch.keys().size());
        List<Record> records = new ArrayList<>(batch.keys().size());
        for (int i = 0; i < batch.keys().size(); i++) {
            Record r = batch.records().get(i);
            if (clock.observe(r.timestamp())) {
                keys.add(batch.keys().get(i));
                records.add(r);
            }
        }
        int stored = store.applyAllIfNewer(keys, records);
        stats.received(batch.keys().size(), body.length);
        int refused = batch.keys().size() - keys.size();
        if (refused > 0) {
            log.warn(
                    "{} of {} streamed records refused: stamped beyond --max-clock-ahead",
                    refused,
                    batch.keys().size());
        }
        if (log.isDebugEnabled()) {
            log.debug(
                    "batch of {} records, {} newer than what this node held",
                    batch.keys().size(),
                    stored);
        }
        responder.send(answer(Responses.text(
                Responses.OK,
                "stored " + stored + " of " + batch.keys().size()
                        + (refused > 0 ? "; " + refused + " refused: stamped beyond --max-clock-ahead" : ""))));
    }
}
