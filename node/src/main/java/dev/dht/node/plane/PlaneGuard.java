package dev.dht.node.plane;

import dev.dht.node.auth.ClientAuth;
import dev.dht.node.auth.ClientCertificate;
import dev.dht.node.auth.Scope;
import dev.dht.node.release.Release;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import one.nio.http.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, before a request is routed, whether its plane serves it (docs/security.md, "Planes"). A refused request
 * is answered 403 with the reason and changes nothing: the guard runs before any parsing that could merge a clock,
 * store a record or learn a topology.
 *
 * <ul>
 *   <li>Client port: no member header (the whole {@code X-Dht-} namespace is the member protocol's), no member path
 *       ({@code /v0/internal/...}); privileged admin requests only with admin rights. A loopback peer has them
 *       (kubectl port-forward, a sidecar, make run). With client tokens ({@link ClientAuth}) or client certificates
 *       ({@link ClientCertificate}) every other request but /v0/status needs a credential whose scope allows it: a
 *       token, or the connection's certificate (401 with neither, or with an unknown token; 403 for too small a
 *       scope); without either the API is open as the course defines it, and admin rights are loopback's only.</li>
 *   <li>Metrics port (optional, plaintext): {@code GET /metrics} and {@code /v0/status} only, for scrapers and
 *       probes that cannot present the client port's certificates.</li>
 *   <li>Member port: the member protocol only: {@code /v0/entity} and {@code /v0/entities} marked
 *       {@code X-Dht-Internal}, {@code /v0/internal/...}, and {@code /v0/status} for probes.</li>
 * </ul>
 */
public final class PlaneGuard {
    private static final Logger log = LoggerFactory.getLogger(PlaneGuard.class);
    /** Paths of the member protocol that are not entity requests (records of moves, topology exchange, ...). */
    public static final String MEMBER_PREFIX = "/v0/internal/";

    private static final String MEMBER_HEADER_PREFIX = "x-dht-";
    private static final String INTERNAL_HEADER = "X-Dht-Internal:";
    private static final String RELEASE_HEADER = Release.MEMBER_HEADER + ":";
    private static final long LOG_EVERY_NANOS = 10_000_000_000L;

    /** Why a request was refused (the label of dht_plane_refused_total). */
    public enum Reason {
        /** a member header on the client port */
        MEMBER_HEADER,
        /** a member path on the client port */
        MEMBER_PATH,
        /** a privileged admin request without admin rights */
        ADMIN,
        /** anything but the member protocol on the member port */
        NOT_MEMBER_PROTOCOL,
        /** no bearer token, tokens required (401) */
        TOKEN_MISSING,
        /** a token that is not (or no longer) valid (401) */
        TOKEN_UNKNOWN,
        /** a valid token whose scope does not allow the request (403) */
        TOKEN_SCOPE,
        /** client certificates but no tokens: no certificate with a scope (401) */
        CERTIFICATE_MISSING,
        /** a client certificate whose scope does not allow the request, and no token that does (403) */
        CERTIFICATE_SCOPE,
        /** anything but GET /metrics and /v0/status on the metrics port */
        NOT_METRICS,
        /** a member request from a release the cluster's feature level no longer admits (docs/upgrading.md) */
        OLD_RELEASE
    }

    /** A refusal: the status (401 asks for credentials: the answer carries a Bearer challenge) and the reason. */
    public record Refusal(Reason reason, String status, String message) {
        Refusal(Reason reason, String message) {
            this(reason, FORBIDDEN, message);
        }

        public boolean challenge() {
            return status.equals(UNAUTHORIZED);
        }
    }

    public static final String FORBIDDEN = "403 Forbidden";
    public static final String UNAUTHORIZED = "401 Unauthorized";

    private final Map<Reason, LongAdder> refused = new EnumMap<>(Reason.class);
    private final AtomicLong lastLog = new AtomicLong(System.nanoTime() - LOG_EVERY_NANOS);
    private final ClientAuth auth;
    private final boolean certificates;
    /** Why a member request from this release (null: it names none) is refused; null when served. */
    private volatile Function<String, String> releases = release -> null;

    /**
     * @param auth         client tokens, or null (no --auth-tokens)
     * @param certificates whether client certificates are checked (--client-tls-ca): without them and without
     *                     tokens the client API is open
     */
    public PlaneGuard(ClientAuth auth, boolean certificates) {
        this.auth = auth;
        this.certificates = certificates;
        for (Reason r : Reason.values()) {
            refused.put(r, new LongAdder());
        }
    }

    /**
     * Member requests are also judged by the release the sender names ({@link Release#MEMBER_HEADER}): check says
     * why one is refused, or null.
     */
    public void refuseReleases(Function<String, String> check) {
        this.releases = check;
    }

    /**
     * @param privileged   whether the request is an admin request that changes the node's state or costs resources
     * @param loopbackPeer whether the peer is on this machine's loopback (it has admin rights)
     * @param certificate  the client certificate of the connection (client port with TLS), or null
     * @return null when the plane serves the request, else the refusal to answer with
     */
    public Refusal check(
            Plane plane, Request request, boolean privileged, boolean loopbackPeer, ClientCertificate certificate) {
        String path = request.getPath();
        Refusal refusal = switch (plane) {
            case MEMBER -> member(request, path);
            case METRICS -> metrics(request, path);
            case CLIENT -> client(request, path, privileged, loopbackPeer, certificate);
        };
        if (refusal != null) {
            refused.get(refusal.reason()).increment();
            logSometimes(plane, path, refusal);
        }
        return refusal;
    }

    private Refusal client(
            Request request, String path, boolean privileged, boolean loopbackPeer, ClientCertificate certificate) {
        String header = memberHeader(request);
        if (header != null) {
            return new Refusal(
                    Reason.MEMBER_HEADER,
                    "member header '" + header + "' refused on the client port: the"
                            + " member protocol is served on the member port only, to authenticated members");
        }
        if (path.startsWith(MEMBER_PREFIX)) {
            return new Refusal(
                    Reason.MEMBER_PATH,
                    path + " is a member path: served on the member port only, to" + " authenticated members");
        }
        if (loopbackPeer) {
            return null;
        }
        if (auth == null && !certificates) {
            return privileged ? adminOnly(request, path) : null;
        }
        Scope required = ClientAuth.required(request, privileged);
        if (required == null) {
            return null;
        }
        // The credentials: the connection's certificate, the request's token; the larger scope counts.
        Scope granted = certificate == null ? null : certificate.scope();
        boolean byToken = false;
        if (auth != null) {
            ClientAuth.Presented token = auth.token(request);
            if (token.sent() && token.scope() == null) {
                return new Refusal(Reason.TOKEN_UNKNOWN, UNAUTHORIZED, "unknown or revoked token");
            }
            if (token.sent() && (granted == null || token.scope().allows(granted))) {
                granted = token.scope();
                byToken = true;
            }
        }
        if (granted == null) {
            return missing(certificate);
        }
        if (granted.allows(required)) {
            return null;
        }
        if (privileged) {
            return adminOnly(request, path);
        }
        return new Refusal(
                byToken ? Reason.TOKEN_SCOPE : Reason.CERTIFICATE_SCOPE,
                FORBIDDEN,
                "a " + granted
                        + (byToken ? " token" : " client certificate (" + certificate.subject() + ")")
                        + " does not allow "
                        + request.getMethodName() + " " + path + " (needs " + required + ")");
    }

    /** No credential with a scope: say what this node takes. */
    private Refusal missing(ClientCertificate certificate) {
        String scopeless =
                certificate == null ? "" : " (the client certificate " + certificate.subject() + " names no scope)";
        if (auth == null) {
            return new Refusal(
                    Reason.CERTIFICATE_MISSING,
                    UNAUTHORIZED,
                    "this node requires a client certificate"
                            + " whose subject names a scope: O=read-only, O=read-write or O=admin" + scopeless);
        }
        return new Refusal(
                Reason.TOKEN_MISSING,
                UNAUTHORIZED,
                "this node requires a client token: send"
                        + " Authorization: Bearer <token>"
                        + (certificates
                                ? ", or present a client certificate whose subject"
                                        + " names a scope (O=read-only, O=read-write or O=admin)"
                                : "")
                        + scopeless);
    }

    private static Refusal metrics(Request request, String path) {
        int method = request.getMethod();
        if ((path.equals("/metrics") || path.equals("/v0/status"))
                && (method == Request.METHOD_GET || method == Request.METHOD_HEAD)
                && memberHeader(request) == null) {
            return null;
        }
        return new Refusal(
                Reason.NOT_METRICS,
                "the metrics port serves GET /metrics and /v0/status only; clients" + " use the client port");
    }

    private static Refusal adminOnly(Request request, String path) {
        return new Refusal(
                Reason.ADMIN,
                request.getMethodName() + " " + path + " is an admin operation: served"
                        + " only to a loopback peer (e.g. kubectl port-forward, a sidecar) or with an admin token");
    }

    private Refusal member(Request request, String path) {
        if (path.equals("/v0/status")) {
            return null;
        }
        if (path.startsWith(MEMBER_PREFIX)
                || (path.equals("/v0/entity") || path.equals("/v0/entities"))
                        && request.getHeader(INTERNAL_HEADER) != null) {
            String release = request.getHeader(RELEASE_HEADER);
            String why = releases.apply(release == null ? null : release.trim());
            return why == null ? null : new Refusal(Reason.OLD_RELEASE, why);
        }
        return new Refusal(
                Reason.NOT_MEMBER_PROTOCOL,
                "the member port serves the member protocol only " + "(X-Dht-Internal requests and " + MEMBER_PREFIX
                        + "...); clients use the client port");
    }

    /** The first header of the member protocol's namespace (X-Dht-...), or null. */
    private static String memberHeader(Request request) {
        String[] headers = request.getHeaders();
        for (int i = 0, n = request.getHeaderCount(); i < n; i++) {
            String h = headers[i];
            if (h.regionMatches(true, 0, MEMBER_HEADER_PREFIX, 0, MEMBER_HEADER_PREFIX.length())) {
                int colon = h.indexOf(':');
                return colon < 0 ? h : h.substring(0, colon);
            }
        }
        return null;
    }

    /** One line per 10 s at most: a flood of refusals must not flood the log. */
    private void logSometimes(Plane plane, String path, Refusal refusal) {
        long now = System.nanoTime();
        long last = lastLog.get();
        if (now - last >= LOG_EVERY_NANOS && lastLog.compareAndSet(last, now)) {
            log.warn(
                    "refused on the {} port ({} so far, see dht_plane_refused_total): {} {}: {}",
                    plane.name().toLowerCase(java.util.Locale.ROOT),
                    total(),
                    refusal.reason(),
                    path,
                    refusal.message());
        }
    }

    /** Requests refused for this reason since start. */
    public long refused(Reason reason) {
        return refused.get(reason).sum();
    }

    private long total() {
        long sum = 0;
        for (LongAdder a : refused.values()) {
            sum += a.sum();
        }
        return sum;
    }
}
