package dev.dht.node.http;

import dev.dht.node.metrics.NodeMetrics;
import dev.dht.node.plane.PlaneGuard;
import dev.dht.node.release.Release;
import dev.dht.node.tls.ClientTls;
import dev.dht.node.tls.MemberTls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import one.nio.http.HttpSession;
import one.nio.http.Request;
import one.nio.http.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's HTTP front, the requests half ({@link ConnectionServer} is the connections'): selector threads parse
 * requests and call {@link #handleRequest}, which routes and validates them, serves on the selector what needs no
 * waiting, and hands the rest to the bounded worker pool (503 at once when its queue is full). Answers go through a
 * {@link Responder} from any thread; the session writes them in request order ({@link DhtSession}).
 *
 * <pre>
 *   GET /v0/status                         answered here, on the selector (probes never queue behind load)
 *   GET|PUT|DELETE /v0/entity?id=&replicas= -> EntityHandler.tryInline on this selector thread if it needs no
 *                                             waiting (reads from memory, writes applied at the end of the
 *                                             pass, a coordinator's sends), else workers -> EntityHandler.handle
 *   GET /v0/entities?start=&end=           -> workers -> RangeHandler (chunked, streamed)
 *   GET /metrics, /v0/admin/...            -> admin pool -> AdminHandler (POST /v0/admin/cleanup too)
 *   PUT /v0/internal/records               -> workers -> AdminHandler (records streamed during a move)
 *   anything else                          400; a known path with another method: 405
 * </pre>
 *
 * A session knows its plane from the port it was accepted on ({@link ConnectionServer}), and {@link PlaneGuard}
 * refuses, before anything is parsed, what its plane does not serve (403 with the reason).
 */
public final class DhtServer extends ConnectionServer {
    private static final long MEMBER_IDLE_MILLIS = java.util.concurrent.TimeUnit.MINUTES.toMillis(10);

    /**
     * How long an idle connection of the member plane is kept: 10 minutes, or the clients' idle timeout if longer.
     * A member's connections are few and cost a TLS handshake at both ends to open again; PeerClient closes its own
     * idle ones first, at half this (docs/security.md, "What TLS costs").
     */
    public static long memberIdleMillis(long clientIdleMillis) {
        return Math.max(clientIdleMillis, MEMBER_IDLE_MILLIS);
    }

    private static final Logger log = LoggerFactory.getLogger(DhtServer.class);

    public static final String STATUS = "/v0/status";
    /** The member's cluster feature level on /v0/status answers (dev.dht.node.release.FeatureLevel). */
    public static final String FEATURE_LEVEL_HEADER = "Dht-Feature-Level";

    public static final String ENTITY = "/v0/entity";
    public static final String ENTITIES = "/v0/entities";
    public static final String METRICS = "/metrics";
    public static final String ADMIN_PREFIX = "/v0/admin/";

    private final EntityHandler entityHandler;
    private final RangeHandler rangeHandler;
    private final Map<String, AdminHandler> adminHandlers;
    private final ReplicasPolicy replicasPolicy;
    private final WorkerPool workers;
    private final WorkerPool adminPool;
    private final RequestTracker tracker;
    private final NodeMetrics metrics;
    private final PlaneGuard guard;
    /** Why the node is not ready yet (GET /v0/status answers 503 with it), or null; see {@link #readiness}. */
    private volatile java.util.function.Supplier<String> notReady = () -> null;

    private volatile java.util.function.IntSupplier featureLevel = () -> 0;

    /** Hand-offs to the worker pool (counted: dht_worker_requests_total) and to the admin pool. */
    private final SessionResponder.Dispatcher toWorkers = this::submitToWorkers;

    private final SessionResponder.Dispatcher toAdminPool = this::submitToAdminPool;

    /**
     * @param port              client port (all interfaces)
     * @param selectors         selector threads
     * @param maxBody           larger request bodies get 413
     * @param idleTimeoutMillis keep-alive idle limit, also the period of one-nio's cleanup pass
     * @param sendTimeoutMillis a queued response that does not move for this long is dropped
     * @param memberPort        member port
     * @param memberAddress     the member port's listening address (loopback unless members may reach it)
     * @param memberTls         the member port's mutual TLS, or null for plaintext
     * @param clientTls         the client port's TLS, or null for plaintext
     * @param metricsPort       the plaintext metrics port (every interface), or 0 for none
     */
    public record Settings(
            int port,
            int selectors,
            int maxBody,
            long idleTimeoutMillis,
            long sendTimeoutMillis,
            int memberPort,
            String memberAddress,
            MemberTls memberTls,
            ClientTls clientTls,
            int metricsPort) {}

    public DhtServer(
            Settings settings,
            EntityHandler entityHandler,
            RangeHandler rangeHandler,
            Map<String, AdminHandler> adminHandlers,
            ReplicasPolicy replicasPolicy,
            WorkerPool workers,
            WorkerPool adminPool,
            RequestTracker tracker,
            NodeMetrics metrics,
            PlaneGuard guard)
            throws IOException {
        super(settings);
        this.guard = guard;
        this.entityHandler = entityHandler;
        this.rangeHandler = rangeHandler;
        this.adminHandlers = Map.copyOf(adminHandlers);
        this.replicasPolicy = replicasPolicy;
        this.workers = workers;
        this.adminPool = adminPool;
        this.tracker = tracker;
        this.metrics = metrics;
    }

    /** Requests refused by plane (metrics). */
    public PlaneGuard guard() {
        return guard;
    }

    /**
     * What GET /v0/status asks besides shutdown: a reason not to be ready yet (a member starting with an empty
     * store deciding whether it must rebuild: dev.dht.node.rebuild), or null.
     */
    public void readiness(java.util.function.Supplier<String> notReady) {
        this.notReady = notReady;
    }

    /** The cluster feature level this member runs at, named on every /v0/status answer beside the release. */
    public void featureLevel(java.util.function.IntSupplier level) {
        this.featureLevel = level;
    }

    @Override
    public void handleRequest(Request request, HttpSession httpSession) throws IOException {
        DhtSession session = (DhtSession) httpSession;
        long start = System.nanoTime();
        String path = request.getPath();
        int method = request.getMethod();

        if (draining) {
            // Stop taking work on kept-alive connections too; Connection: close sends the client elsewhere.
            session.sendError(Response.SERVICE_UNAVAILABLE, "shutting down\n");
            return;
        }
        if (request.getHeader("Transfer-Encoding:") != null) {
            // one-nio reads bodies by Content-Length only; the chunked body bytes would be parsed as requests.
            session.sendError("411 Length Required", "chunked request bodies are not supported; send Content-Length\n");
            return;
        }
        AdminHandler admin = adminHandlers.get(path);
        PlaneGuard.Refusal refusal = guard.check(
                session.plane(),
                request,
                admin != null && admin.privileged(method),
                session.loopbackPeer(),
                session.clientCertificate());
        if (refusal != null) {
            Response response = Responses.text(refusal.status(), refusal.message());
            if (refusal.challenge()) {
                response.addHeader("WWW-Authenticate: Bearer realm=\"dht\"");
            }
            reject(session, method, start, response);
            return;
        }
        switch (path) {
            case ENTITY -> entity(request, session, method, start);
            case ENTITIES -> range(request, session, method, start);
            case STATUS -> status(request, session, method, start);
            default -> {
                if (admin != null) {
                    admin(request, session, method, start, admin);
                } else {
                    reject(session, method, start, Responses.text(Responses.BAD_REQUEST, "unknown path " + path));
                }
            }
        }
    }

    private void status(Request request, DhtSession session, int method, long start) throws IOException {
        if (method != Request.METHOD_GET && method != Request.METHOD_HEAD) {
            reject(session, method, start, Responses.methodNotAllowed(request.getMethodName(), STATUS, "GET"));
            return;
        }
        Response answer;
        if (leaving) {
            answer = Responses.text(
                    Responses.SERVICE_UNAVAILABLE, "draining: this member is stopping; send requests to another one");
        } else {
            String why = notReady.get();
            answer = why == null
                    ? new Response(Response.OK, "OK\n".getBytes(StandardCharsets.US_ASCII))
                    : Responses.text(Responses.SERVICE_UNAVAILABLE, "not ready: " + why);
        }
        // the body stays the course's; the release and feature level ride in headers (probes and the operator)
        answer.addHeader(Release.HEADER + ": " + Release.VERSION);
        answer.addHeader(FEATURE_LEVEL_HEADER + ": " + featureLevel.getAsInt());
        reject(session, method, start, answer);
    }

    private void entity(Request request, DhtSession session, int method, long start) throws IOException {
        EntityRequest.Op op = switch (method) {
            case Request.METHOD_GET -> EntityRequest.Op.GET;
            case Request.METHOD_PUT -> EntityRequest.Op.PUT;
            case Request.METHOD_DELETE -> EntityRequest.Op.DELETE;
            default -> null;
        };
        if (op == null) {
            reject(
                    session,
                    method,
                    start,
                    Responses.methodNotAllowed(request.getMethodName(), ENTITY, "GET, PUT, DELETE"));
            return;
        }
        EntityRequest parsed;
        try {
            parsed = RequestParser.entity(request, op, replicasPolicy);
        } catch (BadRequestException e) {
            reject(session, method, start, Responses.text(e.status(), e.getMessage()));
            return;
        }
        if (entityHandler.coordinates(parsed) && tracker.inFlight() >= workers.capacity()) {
            // Coordinated requests are answered later and never queue: bound how many are in flight instead,
            // with the same limit as the worker queue.
            metrics.rejected();
            reject(
                    session,
                    method,
                    start,
                    Responses.text(Responses.SERVICE_UNAVAILABLE, "overloaded: too many requests in flight"));
            return;
        }
        tracker.started();
        SessionResponder task = new SessionResponder(
                session,
                tracker,
                NodeMetrics.methodIndex(op.name()),
                start,
                responder -> entityHandler.handle(parsed, responder),
                toWorkers);
        // On this thread whatever needs no waiting: reads from memory, writes in the pass's group (one WAL write
        // at the end of the pass), the coordinator's sends; no worker hand-off on the common path (docs/node.md,
        // "Threading"). Only what may wait for the disk or a write stall goes to the bounded pool.
        if (!task.tryInline(responder -> entityHandler.tryInline(parsed, responder))) {
            task.toWorker();
        }
    }

    private void range(Request request, DhtSession session, int method, long start) throws IOException {
        if (method != Request.METHOD_GET) {
            reject(session, method, start, Responses.methodNotAllowed(request.getMethodName(), ENTITIES, "GET"));
            return;
        }
        RangeRequest parsed;
        try {
            parsed = RequestParser.range(request);
        } catch (BadRequestException e) {
            reject(session, method, start, Responses.text(e.status(), e.getMessage()));
            return;
        }
        dispatch(session, NodeMetrics.GET, start, toWorkers, responder -> rangeHandler.handle(parsed, responder));
    }

    private void admin(Request request, DhtSession session, int method, long start, AdminHandler handler)
            throws IOException {
        if (!handler.allows(method)) {
            reject(
                    session,
                    method,
                    start,
                    Responses.methodNotAllowed(request.getMethodName(), request.getPath(), handler.allowed()));
            return;
        }
        dispatch(session, NodeMetrics.OTHER, start, handler.onWorkers() ? toWorkers : toAdminPool, responder -> {
            try {
                handler.handle(request, responder);
            } catch (BadRequestException e) {
                responder.send(Responses.text(e.status(), e.getMessage()));
            }
        });
    }

    /** Hands work to a pool; 503 at once if its queue is full. */
    private void dispatch(
            DhtSession session, int method, long start, SessionResponder.Dispatcher to, SessionResponder.Work work) {
        tracker.started();
        to.dispatch(new SessionResponder(session, tracker, method, start, work, to));
    }

    private void submitToWorkers(SessionResponder task) {
        metrics.toWorker();
        submit(task, workers);
    }

    private void submitToAdminPool(SessionResponder task) {
        submit(task, adminPool);
    }

    private void submit(SessionResponder task, WorkerPool pool) {
        if (!pool.trySubmit(task)) {
            metrics.rejected();
            task.send(Responses.text(Responses.SERVICE_UNAVAILABLE, "overloaded: request queue is full"));
        }
    }

    /** Answers on the selector thread: status, parsing errors and the like, which need no worker. */
    private void reject(DhtSession session, int method, long start, Response response) throws IOException {
        int status = response.getStatus();
        session.sendResponse(response);
        metrics.observeRequest(NodeMetrics.methodIndex(methodName(method)), status, System.nanoTime() - start);
    }

    private static String methodName(int method) {
        return switch (method) {
            case Request.METHOD_GET -> "GET";
            case Request.METHOD_PUT -> "PUT";
            case Request.METHOD_DELETE -> "DELETE";
            default -> "OTHER";
        };
    }

    @Override
    public void handleDefault(Request request, HttpSession session) throws IOException {
        session.sendResponse(Responses.text(Responses.BAD_REQUEST, "unknown path " + request.getPath()));
    }
}
