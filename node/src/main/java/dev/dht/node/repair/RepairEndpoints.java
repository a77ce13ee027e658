package dev.dht.node.repair;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.AdminCalls;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.BadRequestException;
import dev.dht.node.http.Headers;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.json.Json;
import dev.dht.node.movement.RecordBatch;
import dev.dht.node.replication.Protocol;
import dev.dht.node.replication.ReadGate;
import dev.dht.node.storage.RangeCursor;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import one.nio.http.Request;
import one.nio.http.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repair's HTTP side (docs/cluster.md, "Repair: the protocol"). Between members ({@code X-Dht-Internal}; hashes
 * and digests scan the store on {@link BackgroundScans}, the rest on the workers), each naming the member set it was
 * computed for ({@code ?ring=}); a node on another set, or in a move, answers 409 and the step is retried later:
 * <pre>
 *   POST /v0/internal/repair/hashes    span query -> count and hash per span
 *   POST /v0/internal/repair/digests   span query -> the digests per span
 *   POST /v0/internal/repair/fetch     keys -> a record batch of those this node holds
 *   PUT  /v0/internal/repair/records   a record batch, applied last-write-wins -> "stored n of m"
 *   POST /v0/internal/repair/done      these arcs were repaired at that time (the purge horizon moves)
 *   GET  /v0/internal/repair/state     {"empty", "serving", "ring"}: what a starting member asks its peers
 * </pre>
 * For operators: {@code GET /v0/admin/repair} (status, {@code ?ranges=true} adds each range's last repair) and
 * {@code POST /v0/admin/repair} (a round of every replica set this node coordinates, now).
 */
final class RepairEndpoints {
    private static final Logger log = LoggerFactory.getLogger(RepairEndpoints.class);
    static final String STATUS = "/v0/admin/repair";

    private final Store store;
    private final HybridLogicalClock clock;
    private final CurrentRanges current;
    private final RepairHistory history;
    private final RepairStats stats;
    private final RepairService service;
    private final RepairSettings settings;
    private final ReadGate gate;
    private final Supplier<Map<String, Object>> rebuild;
    /** The hashes and digests calls scan the store: off the workers, at background priority. */
    private final BackgroundScans scans;

    RepairEndpoints(
            Store store,
            HybridLogicalClock clock,
            CurrentRanges current,
            RepairHistory history,
            RepairStats stats,
            RepairService service,
            RepairSettings settings,
            ReadGate gate,
            Supplier<Map<String, Object>> rebuild,
            BackgroundScans scans) {
        this.store = store;
        this.clock = clock;
        this.current = current;
        this.history = history;
        this.stats = stats;
        this.service = service;
        this.settings = settings;
        this.gate = gate;
        this.rebuild = rebuild;
        this.scans = scans;
    }

    /** An internal call, with a body: taken on the workers (and run there, or on the background scans). */
    private interface Internal {
        Response handle(Request request, RepairRanges ranges, ByteBuffer body) throws BadRequestException;
    }

    Map<String, AdminHandler> handlers() {
        Map<String, AdminHandler> m = new LinkedHashMap<>();
        m.put(RepairPeers.HASHES, internal(Request.METHOD_POST, this::hashes, true));
        m.put(RepairPeers.DIGESTS, internal(Request.METHOD_POST, this::digests, true));
        m.put(RepairPeers.FETCH, internal(Request.METHOD_POST, this::fetch, false));
        m.put(RepairPeers.RECORDS, internal(Request.METHOD_PUT, this::records, false));
        m.put(RepairPeers.DONE, internal(Request.METHOD_POST, this::done, false));
        m.put(RepairPeers.STATE, (request, responder) -> {
            requireInternal(request);
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("empty", isEmpty());
            s.put("serving", gate.notServing() == null);
            RepairRanges r = current.get();
            s.put("ring", r == null ? null : r.ringId());
            responder.send(answer(Responses.json(Responses.OK, Json.write(s))));
        });
        // the status is read-only: open, as /v0/status is; POST schedules rounds (admin)
        m.put(
                STATUS,
                AdminCalls.handler(
                        (request, responder) -> {
                            boolean ranges = "true".equals(request.getParameter("ranges="));
                            responder.send(Responses.json(Responses.OK, Json.write(status(ranges))));
                        },
                        (request, responder) -> {
                            int n = service.requestRounds();
                            if (n < 0) {
                                responder.send(Responses.json(
                                        Responses.CONFLICT,
                                        Json.write(Map.of("error", "no repair now: " + current.pausedBecause()))));
                                return;
                            }
                            Map<String, Object> out = new LinkedHashMap<>();
                            out.put("scheduled", n);
                            out.put("note", "a round of each replica set this node coordinates; see GET " + STATUS);
                            responder.send(Responses.json(Responses.ACCEPTED, Json.write(out)));
                        }));
        return m;
    }

    /** @param scan the call scans the store: it runs on {@link BackgroundScans}, not on the worker that took it */
    private AdminHandler internal(int method, Internal handler, boolean scan) {
        return new AdminHandler() {
            @Override
            public void handle(Request request, Responder responder) throws BadRequestException {
                requireInternal(request);
                if (method == Request.METHOD_PUT) {
                    observeClock(request); // records arrive: the sender's clock matters as their timestamps do
                }
                RepairRanges r = current.get();
                String theirs = request.getParameter("ring=");
                if (r == null || !r.ringId().equals(theirs)) {
                    responder.send(answer(Responses.text(
                            Responses.CONFLICT,
                            r == null
                                    ? "no repair here now: " + current.pausedBecause()
                                    : "this node repairs member set " + r.ringId() + ", not " + theirs)));
                    return;
                }
                history.use(r);
                byte[] body = request.getBody() == null ? new byte[0] : request.getBody();
                if (!scan) {
                    responder.send(answer(run(handler, request, r, body)));
                    return;
                }
                boolean queued = scans.submit(
                        () -> {
                            try {
                                return run(handler, request, r, body);
                            } catch (BadRequestException e) {
                                return Responses.text(e.status(), e.getMessage());
                            } catch (RuntimeException e) {
                                log.error("repair scan failed: {}", e.toString(), e); // as a worker's failure is logged
                                return Responses.text(Responses.INTERNAL_ERROR, "repair scan failed: " + e);
                            }
                        },
                        response -> responder.send(answer(response)));
                if (!queued) {
                    responder.send(answer(Responses.text(
                            Responses.SERVICE_UNAVAILABLE,
                            "repair scans queued here already; the round tries again later")));
                }
            }

            @Override
            public boolean allows(int m) {
                return m == method;
            }

            @Override
            public String allowed() {
                return method == Request.METHOD_PUT ? "PUT" : "POST";
            }

            @Override
            public boolean onWorkers() {
                return true;
            }
        };
    }

    private static Response run(Internal handler, Request request, RepairRanges r, byte[] body)
            throws BadRequestException {
        try {
            return handler.handle(request, r, ByteBuffer.wrap(body));
        } catch (IllegalArgumentException | java.nio.BufferUnderflowException e) {
            throw new BadRequestException("malformed repair body: " + e.getMessage());
        }
    }

    private static void requireInternal(Request request) throws BadRequestException {
        if (request.getHeader(Headers.INTERNAL + ":") == null) {
            throw new BadRequestException(request.getPath() + " is for members repairing (X-Dht-Internal)");
        }
    }

    private void observeClock(Request request) {
        long theirs = Headers.longValue(request, Headers.CLOCK, 0);
        if (theirs > 0) {
            clock.observe(theirs);
        }
    }

    private Response answer(Response response) {
        return Protocol.withClock(response, clock.now(), null);
    }

    private Response hashes(Request request, RepairRanges r, ByteBuffer body) throws BadRequestException {
        RangeSummaries.AsOf asOf = asOf(request);
        List<RepairWire.Query> queries = RepairWire.readQueries(body);
        return new Response(Responses.OK, RepairWire.summaries(RangeSummaries.summarize(store, asOf, queries)));
    }

    private Response digests(Request request, RepairRanges r, ByteBuffer body) throws BadRequestException {
        RangeSummaries.AsOf asOf = asOf(request);
        int cap = body.getInt();
        if (cap < 1 || cap > 1 << 16) {
            throw new IllegalArgumentException("cap " + cap + " outside 1..65536");
        }
        List<RepairWire.Query> queries = RepairWire.readQueries(body);
        return new Response(Responses.OK, RepairWire.listings(RangeSummaries.list(store, asOf, queries, cap)));
    }

    /**
     * The moment the caller's comparison reads as of ({@code &asOf=}, its round's start); without it (a coordinator
     * of a version before it) now: a digest index at least as new as the call. A moment further ahead of this node's
     * clock than --max-clock-ahead is refused: an index stamped with it would be reused long after it is stale.
     */
    private RangeSummaries.AsOf asOf(Request request) throws BadRequestException {
        String v = request.getParameter(RepairPeers.AS_OF);
        if (v == null) {
            return new RangeSummaries.AsOf(clock.now(), clock);
        }
        long at;
        try {
            at = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new BadRequestException("asOf is not a timestamp: " + v);
        }
        if (!clock.admit(at)) {
            throw new BadRequestException(
                    "asOf " + at + " is further ahead of this node's clock than --max-clock-ahead");
        }
        return new RangeSummaries.AsOf(at, clock);
    }

    private Response fetch(Request request, RepairRanges r, ByteBuffer body) {
        RecordBatch batch = new RecordBatch();
        for (byte[] key : RepairWire.readKeys(body)) {
            Record rec = store.get(key);
            if (rec != null) {
                batch.add(key, rec);
            }
        }
        return new Response(Responses.OK, batch.toBytes());
    }

    private Response records(Request request, RepairRanges r, ByteBuffer body) {
        RecordBatch.Decoded batch = RecordBatch.decode(body.array());
        // A record stamped beyond the clock's bound is left out (docs/security.md, "Clocks"), as in a move.
        List<byte[]> keys = new ArrayList<>(batch.keys().size());
        List<Record> records = new ArrayList<>(batch.keys().size());
        for (int i = 0; i < batch.keys().size(); i++) {
            if (clock.observe(batch.records().get(i).timestamp())) {
                keys.add(batch.keys().get(i));
                records.add(batch.records().get(i));
            }
        }
        int stored = store.applyAllIfNewer(keys, records);
        stats.keysReceived.add(stored);
        return Responses.text(
                Responses.OK, "stored " + stored + " of " + batch.keys().size());
    }

    private Response done(Request request, RepairRanges r, ByteBuffer body) {
        RepairWire.Done d = RepairWire.readDone(body);
        history.repaired(r.ringId(), d.arcs(), d.repairedAt());
        return Responses.text(Responses.OK, "recorded " + d.arcs().size());
    }

    /** "stored n of m" -> n. */
    static long storedCount(byte[] body) {
        String s = new String(body, StandardCharsets.UTF_8).trim();
        String[] parts = s.split(" ");
        try {
            return parts.length >= 2 && parts[0].equals("stored") ? Long.parseLong(parts[1]) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    boolean isEmpty() {
        try (RangeCursor c = store.range(new byte[0], null)) {
            return !c.next();
        }
    }

    /** GET /v0/admin/repair (the contract with the operator: fields may be added, never changed). */
    Map<String, Object> status(boolean withRanges) {
        Map<String, Object> m = new LinkedHashMap<>();
        RepairRanges r = current.get();
        if (r != null) {
            history.use(r);
        }
        long interval = settings.interval().toSeconds();
        m.put("enabled", interval > 0);
        m.put("intervalSeconds", interval);
        m.put("rateBytesPerSecond", settings.rate());
        m.put("graceSeconds", settings.grace().toSeconds());
        String running = stats.running;
        m.put("state", running != null ? "running" : r == null ? "paused" : "idle");
        m.put("problem", stats.problem);
        m.put("pending", service.pending());
        if (running != null) {
            Map<String, Object> run = new LinkedHashMap<>();
            run.put("replicaSet", running);
            run.put("rangesDone", stats.runningArcsDone);
            run.put("rangesTotal", stats.runningArcsTotal);
            m.put("running", run);
        } else {
            m.put("running", null);
        }
        Map<String, Object> last = new LinkedHashMap<>();
        last.put("at", stats.lastRoundAt);
        last.put("rangesOutOfSync", stats.lastRoundRangesOutOfSync);
        last.put("keysRepaired", stats.lastRoundKeysRepaired);
        last.put("millis", stats.lastRoundMillis);
        m.put("lastRound", last);
        long oldest = history.oldest();
        // 0: some range never repaired; a member whose ranges no other member replicates has nothing to repair
        m.put(
                "oldestRangeRepair",
                oldest == 0
                        ? 0
                        : oldest == Long.MAX_VALUE
                                ? System.currentTimeMillis()
                                : HybridLogicalClock.physicalMillis(oldest));
        m.put("ranges", r == null ? 0 : r.arcs().size());
        m.put("replicaSets", r == null ? 0 : r.groups().size());
        m.put("coordinates", r == null ? 0 : r.coordinated().size());
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("rounds", stats.roundsCompleted.sum());
        totals.put("roundsFailed", stats.roundsFailed.sum());
        totals.put("rangesCompared", stats.rangesCompared.sum());
        totals.put("rangesOutOfSync", stats.rangesOutOfSync.sum());
        totals.put("keysRepaired", stats.keysRepaired.sum());
        totals.put("bytesRepaired", stats.bytesRepaired.sum());
        totals.put("hashBytes", stats.hashBytes.sum());
        totals.put("keysDeferred", stats.keysDeferred.sum());
        totals.put("keysReceived", stats.keysReceived.sum());
        m.put("totals", totals);
        m.put("rebuild", rebuild.get());
        if (withRanges && r != null) {
            List<Object> list = new ArrayList<>();
            for (RepairRanges.Arc a : r.arcs()) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("arc", a.index());
                e.put("end", Long.toUnsignedString(r.ring().arcEnd(a.index())));
                e.put("replicas", a.replicas());
                long at = history.repairedAt(a.index());
                e.put("repairedAt", at == 0 ? 0 : HybridLogicalClock.physicalMillis(at));
                list.add(e);
            }
            m.put("rangeList", list);
        }
        return m;
    }
}
