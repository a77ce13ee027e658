package dev.dht.node.forget;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.Membership;
import dev.dht.node.http.AdminCalls;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.BadRequestException;
import dev.dht.node.http.Headers;
import dev.dht.node.http.QueryParams;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.json.Json;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import dev.dht.node.topology.TopologyManager;
import dev.dht.node.topology.TopologyState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import one.nio.http.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forgetting a member that will never come back (docs/operations.md, "Removing a member that is gone for good"):
 * <pre>
 *   POST   /v0/admin/forget?member=URL     forget it here and tell every other member (admin)
 *   DELETE /v0/admin/forget?member=URL     undo (a member with that URL may join again, on a new volume)
 *   GET    /v0/admin/forget                the forgotten members
 *   POST   /v0/internal/forget?member=URL  a member tells this one (member port)
 * </pre>
 * Only with a cluster file: a fixed --cluster list never moves anything.
 */
public final class ForgetEndpoints {
    private static final Logger log = LoggerFactory.getLogger(ForgetEndpoints.class);
    public static final String ADMIN = "/v0/admin/forget";
    public static final String INTERNAL = "/v0/internal/forget";

    private final ForgottenMembers forgotten;
    private final TopologyManager manager;
    private final Membership membership;
    private final PeerClient client;
    private final HybridLogicalClock clock;
    private final Duration timeout;

    public ForgetEndpoints(
            ForgottenMembers forgotten,
            TopologyManager manager,
            Membership membership,
            PeerClient client,
            HybridLogicalClock clock,
            Duration timeout) {
        this.forgotten = forgotten;
        this.manager = manager;
        this.membership = membership;
        this.client = client;
        this.clock = clock;
        this.timeout = timeout;
    }

    public Map<String, AdminHandler> handlers() {
        Map<String, AdminHandler> m = new LinkedHashMap<>();
        m.put(ADMIN, new AdminHandler() {
            @Override
            public void handle(Request request, Responder responder) throws BadRequestException {
                switch (request.getMethod()) {
                    case Request.METHOD_GET ->
                        responder.send(Responses.json(Responses.OK, Json.write(Map.of("forgotten", forgotten.all()))));
                    case Request.METHOD_DELETE -> {
                        String member = member(request);
                        forgotten.remember(member);
                        log.info("{} is no longer forgotten here", member);
                        responder.send(Responses.json(Responses.OK, Json.write(Map.of("forgotten", forgotten.all()))));
                    }
                    default -> forget(member(request), responder);
                }
            }

            @Override
            public boolean allows(int method) {
                return method == Request.METHOD_GET || method == Request.METHOD_POST || method == Request.METHOD_DELETE;
            }

            @Override
            public String allowed() {
                return "GET, POST, DELETE";
            }

            @Override
            public boolean privileged(int method) {
                return method != Request.METHOD_GET;
            }
        });
        m.put(INTERNAL, AdminCalls.handler(null, (request, responder) -> {
            if (request.getHeader(Headers.INTERNAL + ":") == null) {
                throw new BadRequestException(INTERNAL + " is for members (X-Dht-Internal)");
            }
            String member = member(request);
            if (!forgotten.test(member)) {
                forgotten.forget(member);
                log.warn("{} forgotten, as another member was told: moves no longer wait for it", member);
            }
            responder.send(Responses.text(Responses.OK, "forgotten " + member));
        }));
        return m;
    }

    private static String member(Request request) throws BadRequestException {
        String raw = QueryParams.get(dev.dht.node.http.RequestParser.rawQuery(request), "member");
        if (raw == null || raw.isBlank()) {
            throw new BadRequestException("say which member: ?member=http://host:port");
        }
        try {
            return ClusterMembers.normalize(raw);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("bad member '" + raw + "': " + e.getMessage());
        }
    }

    private void forget(String member, Responder responder) {
        TopologyState s = manager.state();
        if (!manager.changeable() || s == null) {
            responder.send(Responses.json(
                    Responses.CONFLICT,
                    Json.write(Map.of(
                            "error",
                            !manager.changeable()
                                    ? "this node has a fixed --cluster list: forgetting needs a cluster file (members move data)"
                                    : "this node has no topology state yet"))));
            return;
        }
        if (member.equals(manager.self())) {
            responder.send(Responses.json(
                    Responses.CONFLICT,
                    Json.write(Map.of("error", "a node cannot forget itself: ask another member"))));
            return;
        }
        TreeSet<String> known = new TreeSet<>(s.participants());
        known.addAll(membership.current().urls());
        if (!known.contains(member)) {
            responder.send(Responses.json(
                    Responses.CONFLICT,
                    Json.write(Map.of("error", member + " is not a member here (members: " + known + ")"))));
            return;
        }
        forgotten.forget(member);
        log.warn("{} forgotten: it is left out of the member list, and no move waits for it", member);
        known.remove(member);
        known.remove(manager.self());
        Map<String, CompletableFuture<Boolean>> calls = new LinkedHashMap<>();
        for (String other : known) {
            calls.put(other, tell(other, member));
        }
        List<String> told = new ArrayList<>();
        List<String> notReached = new ArrayList<>();
        calls.forEach((other, call) -> {
            boolean ok;
            try {
                ok = call.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                ok = false;
            }
            (ok ? told : notReached).add(other);
        });
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("forgotten", member);
        out.put("told", told);
        out.put("notReached", notReached);
        out.put(
                "note",
                "the members move to the list without it (see GET /v0/admin/movement); repeat this on the"
                        + " members not reached once they are up");
        responder.send(Responses.json(Responses.ACCEPTED, Json.write(out)));
    }

    private CompletableFuture<Boolean> tell(String other, String member) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        client.send(
                other,
                new PeerRequest("POST", INTERNAL + "?member=" + QueryParams.encode(member), clock.now(), 0, null),
                System.nanoTime() + timeout.toNanos(),
                new PeerCallback() {
                    @Override
                    public void completed(PeerResponse response) {
                        done.complete(response.status() == 200);
                    }

                    @Override
                    public void failed(boolean timeout, String reason) {
                        done.complete(false);
                    }
                });
        return done;
    }
}
