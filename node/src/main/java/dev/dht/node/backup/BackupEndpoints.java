package dev.dht.node.backup;

import dev.dht.node.http.AdminCalls;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.BadRequestException;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import one.nio.http.Request;

/**
 * The admin side of backups (docs/operations.md, "Back up and restore"); the operator drives them:
 * <pre>
 *   GET  /v0/admin/backup          this member's backup job and progress
 *   POST /v0/admin/backup          {"id", "t0", "member"}: take a checkpoint and upload it (202; idempotent)
 *   POST /v0/admin/backup/finish   {"id", "members"}: write the manifest once every member's part is stored
 *   POST /v0/admin/backup/prune    {"candidates", "keepLast", "maxAgeSeconds", "protect"}: retention
 *   GET  /v0/admin/backups         every backup in the store: id, complete, start point, bytes
 * </pre>
 * 409 with a reason when a request cannot be served now (a move in progress, another backup running, a member
 * missing); 503 when the object store does not answer.
 */
public final class BackupEndpoints {
    public static final String BACKUP = "/v0/admin/backup";
    public static final String FINISH = "/v0/admin/backup/finish";
    public static final String PRUNE = "/v0/admin/backup/prune";
    public static final String LIST = "/v0/admin/backups";

    private final BackupAgent agent;
    private final LongSupplier wall;

    /** @param agent null when no object store is configured */
    public BackupEndpoints(BackupAgent agent, LongSupplier wall) {
        this.agent = agent;
        this.wall = wall;
    }

    public Map<String, AdminHandler> handlers() {
        Map<String, AdminHandler> m = new HashMap<>();
        m.put(BACKUP, AdminCalls.handler(this::status, guarded(this::start)));
        m.put(FINISH, AdminCalls.handler(null, guarded(this::finish)));
        m.put(PRUNE, AdminCalls.handler(null, guarded(this::prune)));
        m.put(LIST, AdminCalls.handler(guarded(this::list), null));
        return m;
    }

    /** Not configured (409), refused (409), bad input (400), store unreachable (503): {@link ObjectStoreCalls}. */
    private AdminCalls.Call guarded(AdminCalls.Call call) {
        return ObjectStoreCalls.guarded(agent != null, "--backup-endpoint and --backup-bucket", call);
    }

    private void status(Request request, Responder responder) {
        if (agent == null) {
            AdminCalls.json(responder, Responses.OK, Map.of("phase", "idle", "configured", false));
            return;
        }
        AdminCalls.json(responder, Responses.OK, agent.status());
    }

    private void start(Request request, Responder responder) throws BadRequestException {
        Map<String, Object> body = AdminCalls.body(request);
        String id = AdminCalls.string(body, "id");
        long t0 = AdminCalls.number(body, "t0", null);
        long member = AdminCalls.number(body, "member", null);
        if (t0 <= 0 || t0 > wall.getAsLong() + Duration.ofMinutes(5).toMillis()) {
            throw new BadRequestException("\"t0\" must be a start point in ms since the epoch, not in the future");
        }
        if (member < 0 || member > 10_000) {
            throw new BadRequestException("\"member\" must be this member's index, 0 or more");
        }
        AdminCalls.json(responder, Responses.ACCEPTED, agent.start(id, t0, (int) member));
    }

    private void finish(Request request, Responder responder) throws BadRequestException {
        Map<String, Object> body = AdminCalls.body(request);
        String id = AdminCalls.string(body, "id");
        long members = AdminCalls.number(body, "members", null);
        if (members < 1 || members > 10_000) {
            throw new BadRequestException("\"members\" must be the backup's member count, 1 or more");
        }
        BackupManifest m = agent.finish(id, (int) members);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", m.backup());
        out.put("complete", true);
        out.put("t0", m.t0());
        out.put("completedAt", m.completedAt());
        out.put("members", m.members().size());
        out.put("bytes", m.bytes());
        out.put("records", m.records());
        AdminCalls.json(responder, Responses.OK, out);
    }

    private void prune(Request request, Responder responder) throws BadRequestException {
        Map<String, Object> body = AdminCalls.body(request);
        List<String> candidates = AdminCalls.strings(body, "candidates");
        Set<String> protect = new HashSet<>(AdminCalls.strings(body, "protect"));
        long keepLast = AdminCalls.number(body, "keepLast", null);
        long maxAge = AdminCalls.number(body, "maxAgeSeconds", 0L);
        if (keepLast < 1) {
            throw new BadRequestException("\"keepLast\" must be 1 or more (the newest complete backup always stays)");
        }
        for (String id : candidates) {
            BackupStore.checkId(id);
        }
        if (agent.running()) {
            throw new BackupAgent.Conflict("a backup runs on this member: prune when no backup is in progress");
        }
        BackupStore store = agent.backups();
        Map<String, Long> complete = new HashMap<>();
        Set<String> incomplete = new HashSet<>();
        Set<String> stored = store.backupIds();
        for (String id : candidates) {
            BackupManifest m = store.manifest(id);
            if (m != null) {
                complete.put(id, m.t0());
            } else if (stored.contains(id)) {
                incomplete.add(id);
            }
        }
        List<String> delete = Retention.toDelete(
                complete,
                incomplete,
                protect,
                (int) keepLast,
                maxAge > 0 ? Duration.ofSeconds(maxAge) : null,
                wall.getAsLong());
        for (String id : delete) {
            store.deleteBackup(id);
        }
        BackupStore.Collected gc = store.collectGarbage();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("deleted", delete);
        out.put(
                "kept",
                candidates.stream()
                        .filter(id -> !delete.contains(id) && stored.contains(id))
                        .toList());
        out.put("absent", candidates.stream().filter(id -> !stored.contains(id)).toList());
        out.put("files", Map.of("deleted", gc.deleted(), "kept", gc.kept(), "bytesFreed", gc.bytesFreed()));
        AdminCalls.json(responder, Responses.OK, out);
    }

    private void list(Request request, Responder responder) {
        BackupStore store = agent.backups();
        List<Object> out = new java.util.ArrayList<>();
        for (String id : store.backupIds()) {
            BackupManifest m = store.manifest(id);
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("id", id);
            e.put("complete", m != null);
            e.put("t0", m == null ? null : m.t0());
            e.put("bytes", m == null ? null : m.bytes());
            e.put("members", m == null ? null : m.members().size());
            out.add(e);
        }
        AdminCalls.json(responder, Responses.OK, Map.of("backups", out));
    }
}
