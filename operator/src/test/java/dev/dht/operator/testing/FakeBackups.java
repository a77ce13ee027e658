package dev.dht.operator.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The backup and restore endpoints of {@link FakeMembers}, scripted as the node answers them (node/backup,
 * node/restore): a member asked to back up (or restore) reports progress for a few polls, or as long as a test
 * holds it, then done (streamed); finish checks every member is done; a restore finished loads (one poll), then
 * waits until every member loaded, then serves; prune deletes the complete candidates beyond keepLast, newest kept
 * (the node's Retention). The calls are recorded for the tests.
 */
public final class FakeBackups {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<Integer, Job> backupJobs = new ConcurrentHashMap<>();
    private final Map<Integer, Job> restoreJobs = new ConcurrentHashMap<>();
    private final Map<Integer, Boolean> serving = new ConcurrentHashMap<>();
    /** Polls of each member since its restore was finished. */
    private final Map<Integer, Integer> sinceFinish = new ConcurrentHashMap<>();
    /** Complete backups in the fake store, in the order they completed (their start points). */
    private final Map<String, Long> complete = new ConcurrentHashMap<>();

    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final Set<Integer> held = ConcurrentHashMap.newKeySet();
    private volatile int pollsToFinish = 2;
    /** What every member says of the object store: null when it can use it, else its error (a backup fails with it). */
    private volatile String storeError;

    private static final class Job {
        final String id;
        final long t0;
        int polls;

        Job(String id, long t0) {
            this.id = id;
            this.t0 = t0;
        }
    }

    /** A member's progress keeps going until released. */
    public void hold(int... ordinals) {
        for (int i : ordinals) {
            held.add(i);
        }
    }

    public void release(int... ordinals) {
        for (int i : ordinals) {
            held.remove(i);
        }
    }

    /** Every member reports the object store unusable with this error (null: usable again). */
    public void refuseStore(String error) {
        storeError = error;
    }

    /** Every call, as "METHOD path body". */
    public List<String> calls() {
        return List.copyOf(calls);
    }

    /** The Authorization header of every call ("-" when none), in the order of {@link #calls()}. */
    public List<String> authorizations() {
        return List.copyOf(authorizations);
    }

    public Set<String> completeBackups() {
        return Set.copyOf(complete.keySet());
    }

    void serve(HttpExchange exchange, int ordinal) throws IOException {
        String path = exchange.getRequestURI().getPath();
        String method = exchange.getRequestMethod();
        byte[] in = exchange.getRequestBody().readAllBytes();
        @SuppressWarnings("unchecked")
        Map<String, Object> body = in.length == 0 ? Map.of() : JSON.readValue(in, Map.class);
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        authorizations.add(authorization == null ? "-" : authorization);
        calls.add(method + " " + path + " " + ordinal + " " + body);
        int status = 200;
        Object answer;
        synchronized (this) {
            switch (method + " " + path) {
                case "GET /v0/admin/backup" -> answer = backupStatus(ordinal);
                case "POST /v0/admin/backup" -> {
                    var job = backupJobs.get(ordinal);
                    if (job == null || !job.id.equals(body.get("id"))) {
                        backupJobs.put(
                                ordinal, new Job((String) body.get("id"), ((Number) body.get("t0")).longValue()));
                    }
                    status = 202;
                    answer = backupStatus(ordinal);
                }
                case "POST /v0/admin/backup/finish" -> {
                    String id = (String) body.get("id");
                    int members = ((Number) body.get("members")).intValue();
                    long done = backupJobs.values().stream()
                            .filter(j -> j.id.equals(id) && j.polls >= pollsToFinish)
                            .count();
                    if (done < members) {
                        status = 409;
                        answer = Map.of(
                                "error", "backup " + id + " is not complete: " + (members - done) + " members missing");
                    } else {
                        complete.putIfAbsent(id, System.nanoTime());
                        answer = Map.of("id", id, "complete", true, "bytes", 3000L * members);
                    }
                }
                case "POST /v0/admin/backup/prune" -> answer = prune(body);
                case "GET /v0/admin/restore" -> answer = restoreStatus(ordinal);
                case "POST /v0/admin/restore" -> {
                    restoreJobs.putIfAbsent(ordinal, new Job((String) body.get("id"), 0));
                    status = 202;
                    answer = restoreStatus(ordinal);
                }
                case "POST /v0/admin/restore/finish" -> {
                    sinceFinish.putIfAbsent(ordinal, 0);
                    answer = restoreStatus(ordinal);
                }
                default -> {
                    status = 400;
                    answer = Map.of("error", "unknown call " + method + " " + path);
                }
            }
        }
        byte[] out = JSON.writeValueAsBytes(answer);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, out.length);
        exchange.getResponseBody().write(out);
        exchange.close();
    }

    private Map<String, Object> backupStatus(int ordinal) {
        var job = backupJobs.get(ordinal);
        var m = new LinkedHashMap<String, Object>();
        String refused = storeError;
        var store = new LinkedHashMap<String, Object>();
        store.put("ok", refused == null);
        store.put("error", refused);
        m.put("store", store);
        if (job == null) {
            m.put("phase", "idle");
            return m;
        }
        if (refused != null) {
            m.put("id", job.id);
            m.put("t0", job.t0);
            m.put("phase", "failed");
            m.put("error", refused);
            return m;
        }
        if (!held.contains(ordinal)) {
            job.polls++;
        }
        boolean done = job.polls >= pollsToFinish;
        m.put("id", job.id);
        m.put("t0", job.t0);
        m.put("phase", done ? "done" : "uploading");
        m.put("files", Map.of("done", done ? 4 : 1, "total", 4));
        m.put("bytes", Map.of("done", done ? 1000 : 250, "total", 1000, "uploaded", done ? 1000 : 250));
        return m;
    }

    private Map<String, Object> restoreStatus(int ordinal) {
        var job = restoreJobs.get(ordinal);
        var m = new LinkedHashMap<String, Object>();
        boolean isServing = serving.getOrDefault(ordinal, false);
        m.put("serving", isServing);
        if (job == null) {
            m.put("phase", "idle");
            return m;
        }
        if (!held.contains(ordinal)) {
            job.polls++;
        }
        boolean streamed = job.polls >= pollsToFinish;
        String phase = streamed ? "streamed" : "restoring";
        if (!isServing && sinceFinish.containsKey(ordinal)) {
            int polls = sinceFinish.merge(ordinal, 1, Integer::sum);
            boolean everyMemberLoaded =
                    restoreJobs.keySet().stream().allMatch(i -> sinceFinish.getOrDefault(i, 0) >= 2);
            phase = polls < 2 ? "loading" : "loaded";
            if (everyMemberLoaded) {
                serving.put(ordinal, true);
                isServing = true;
                m.put("serving", true);
            }
        }
        m.put("id", job.id);
        m.put("phase", isServing ? "done" : phase);
        m.put("parts", Map.of("done", streamed ? 1 : 0, "total", 1));
        m.put("bytes", Map.of("downloaded", streamed ? 1000 : 100, "total", 1000));
        m.put("records", Map.of("sent", streamed ? 5000 : 500));
        return m;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> prune(Map<String, Object> body) {
        var candidates = (List<String>) body.get("candidates");
        int keepLast = ((Number) body.get("keepLast")).intValue();
        var completeCandidates = new ArrayList<>(
                candidates.stream().filter(complete::containsKey).toList());
        completeCandidates.sort(Comparator.comparing(complete::get, Comparator.reverseOrder()));
        var deleted = new ArrayList<String>();
        for (int i = keepLast; i < completeCandidates.size(); i++) {
            deleted.add(completeCandidates.get(i));
            complete.remove(completeCandidates.get(i));
        }
        var absent =
                candidates.stream().filter(c -> !completeCandidates.contains(c)).toList();
        return Map.of("deleted", deleted, "absent", absent, "files", Map.of("deleted", deleted.size() * 2, "kept", 5));
    }
}
