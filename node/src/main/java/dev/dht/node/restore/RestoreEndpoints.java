package dev.dht.node.restore;

import dev.dht.node.backup.BackupAgent;
import dev.dht.node.backup.ObjectStoreCalls;
import dev.dht.node.http.AdminCalls;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.BadRequestException;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import one.nio.http.Request;

/**
 * The admin side of restores; the operator drives them (docs/operations.md, "Back up and restore"):
 * <pre>
 *   GET  /v0/admin/restore          this node's share: phase, parts, bytes, records; serving or not
 *   POST /v0/admin/restore          {"id", "share", "shares"}: restore this node's share of a backup (202)
 *   POST /v0/admin/restore/finish   {"id"}: every share is sent; serve clients from now on
 *   GET  /v0/internal/restore       the same status, on the member plane (members waiting for a restore ask it)
 *   PUT  /v0/internal/restore/records?id=   records a member sends for a restore into a new cluster: kept in
 *                                   this member's inbox until every share is sent (member plane, on a worker)
 * </pre>
 */
public final class RestoreEndpoints {
    public static final String RESTORE = RestoreAgent.STATUS_PATH;
    public static final String FINISH = "/v0/admin/restore/finish";
    /** The same status for the other members (member plane): a member waiting for a restore asks if it is done. */
    public static final String MEMBERS = RestoreAgent.MEMBER_STATUS_PATH;

    public static final String RECORDS = "/v0/internal/restore/records";

    private final RestoreAgent agent;
    private final boolean configured;

    public RestoreEndpoints(RestoreAgent agent, boolean configured) {
        this.agent = agent;
        this.configured = configured;
    }

    public Map<String, AdminHandler> handlers() {
        Map<String, AdminHandler> m = new HashMap<>();
        m.put(
                RESTORE,
                AdminCalls.handler(
                        (request, responder) -> AdminCalls.json(responder, Responses.OK, agent.status()),
                        guarded(this::start)));
        m.put(FINISH, AdminCalls.handler(null, guarded(this::finish)));
        m.put(
                MEMBERS,
                AdminCalls.handler(
                        (request, responder) -> AdminCalls.json(responder, Responses.OK, agent.status()), null));
        m.put(RECORDS, AdminHandler.writing(this::records));
        return m;
    }

    private AdminCalls.Call guarded(AdminCalls.Call call) {
        return ObjectStoreCalls.guarded(
                configured, "--backup-endpoint, --backup-bucket and --backup-credentials", call);
    }

    private void start(Request request, Responder responder) throws BadRequestException {
        Map<String, Object> body = AdminCalls.body(request);
        String id = AdminCalls.string(body, "id");
        long share = AdminCalls.number(body, "share", null);
        long shares = AdminCalls.number(body, "shares", null);
        if (shares < 1 || shares > 10_000 || share < 0 || share >= shares) {
            throw new BadRequestException("\"share\" must be in 0..shares-1 and \"shares\" the node count");
        }
        AdminCalls.json(responder, Responses.ACCEPTED, agent.start(id, (int) share, (int) shares));
    }

    private void records(Request request, Responder responder) throws BadRequestException {
        String id = request.getParameter("id=");
        byte[] body = request.getBody() == null ? new byte[0] : request.getBody();
        RestoreBatches.Checked kept;
        try {
            kept = agent.receive(id, body);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("not a batch of a restore: " + e.getMessage());
        } catch (BackupAgent.Conflict | IllegalStateException e) {
            responder.send(Responses.text(Responses.CONFLICT, e.getMessage()));
            return;
        } catch (IOException | UncheckedIOException e) {
            responder.send(Responses.text(Responses.SERVICE_UNAVAILABLE, "cannot keep the records: " + e.getMessage()));
            return;
        }
        responder.send(Responses.text(
                Responses.OK,
                "kept " + kept.count() + " records"
                        + (kept.refused() == 0
                                ? ""
                                : "; " + kept.refused() + " refused: stamped beyond --max-clock-ahead")));
    }

    private void finish(Request request, Responder responder) throws BadRequestException {
        String id = AdminCalls.string(AdminCalls.body(request), "id");
        agent.finish(id);
        AdminCalls.json(responder, Responses.OK, agent.status());
    }
}
