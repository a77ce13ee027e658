package dev.dht.node.topology;

import dev.dht.node.config.ClusterMembers;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a node answers on {@code GET /v0/internal/topology} (members, member port) and {@code GET
 * /v0/admin/topology} (read-only, client port): its state (null while it has none: a new node still asking its
 * peers) and its progress in the current move. Peers poll it during a move; the operator may read it.
 *
 * <p>A member set is {@code {"id", "members"}}, and {@code "racks": {url: rack}} when it has racks: a member that
 * does not know racks computes the id from the members alone, finds it does not match, and learns nothing from it.
 *
 * @param self    the answering node's member URL
 * @param state   its topology state, or null when it has none yet
 * @param drained at joint: it has been at joint longer than the request timeout (no write coordinated under an
 *                older state can still be acknowledged); true at any other stage
 * @param sent    at joint: it has sent every record the move needs from it (trivially, if it is not in S)
 */
public record TopologyReport(String self, TopologyState state, boolean drained, boolean sent) {

    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("self", self);
        m.put("decided", state != null);
        if (state != null) {
            m.put("epoch", state.epoch());
            m.put("stage", state.stage().jsonName());
            m.put("phase", state.moving() ? "joint" : "stable");
            m.put("version", state.version());
            m.put("header", state.header());
            m.put("stable", set(state.stable()));
            m.put("target", state.target() == null ? null : set(state.target()));
        }
        m.put("drained", drained);
        m.put("sent", sent);
        return m;
    }

    private static Map<String, Object> set(ClusterMembers members) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", TopologyId.of(members));
        m.put("members", members.urls());
        if (members.hasRacks()) {
            m.put("racks", members.racks()); // absent without racks: the report older members read
        }
        return m;
    }

    /** Reads a report; IllegalArgumentException if it is not one (or its ids do not match its member lists). */
    public static TopologyReport fromJson(Map<String, Object> m) {
        try {
            return read(m);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) { // a wrong type or a null where a value belongs: garbage all the same
            throw new IllegalArgumentException("not a topology report: " + e, e);
        }
    }

    private static TopologyReport read(Map<String, Object> m) {
        String self = string(m, "self");
        boolean decided = Boolean.TRUE.equals(m.get("decided"));
        TopologyState state = null;
        if (decided) {
            long epoch = number(m, "epoch");
            Stage stage = Stage.ofJson(string(m, "stage"));
            ClusterMembers stable = members(m.get("stable"));
            ClusterMembers target = m.get("target") == null ? null : members(m.get("target"));
            state = new TopologyState(epoch, stage, stable, target);
        }
        return new TopologyReport(self, state, Boolean.TRUE.equals(m.get("drained")),
                Boolean.TRUE.equals(m.get("sent")));
    }

    @SuppressWarnings("unchecked")
    private static ClusterMembers members(Object o) {
        if (!(o instanceof Map<?, ?> set)) {
            throw new IllegalArgumentException("a member set must be an object with id and members");
        }
        Object list = set.get("members");
        if (!(list instanceof List<?> urls) || urls.isEmpty()) {
            throw new IllegalArgumentException("a member set needs a non-empty members list");
        }
        ClusterMembers members = ClusterMembers.of((List<String>) urls, racks(set.get("racks")));
        Object id = set.get("id");
        if (id != null && !id.equals(TopologyId.of(members))) {
            throw new IllegalArgumentException("member set id " + id + " does not match its members");
        }
        return members;
    }

    /** A url -> rack object, or none (absent or null). */
    @SuppressWarnings("unchecked")
    static Map<String, String> racks(Object o) {
        if (o == null) {
            return Map.of();
        }
        if (!(o instanceof Map<?, ?> racks)) {
            throw new IllegalArgumentException("racks must be an object of member -> rack");
        }
        for (Object rack : racks.values()) {
            if (!(rack instanceof String)) {
                throw new IllegalArgumentException("a rack must be a string, got " + rack);
            }
        }
        return (Map<String, String>) racks;
    }

    static String string(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (!(v instanceof String s)) {
            throw new IllegalArgumentException("missing string '" + key + "'");
        }
        return s;
    }

    static long number(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (!(v instanceof Long n)) {
            throw new IllegalArgumentException("missing number '" + key + "'");
        }
        return n;
    }
}
