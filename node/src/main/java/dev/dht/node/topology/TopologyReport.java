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
 * <p>A poll that names the state its sender holds ({@code ?known=<header>}) and finds the same state here gets the
 * brief form: {@code "same": true} and the header, no member lists. Every member polls every other one each
 * {@code MovementSettings.DEFAULT_POLL} during a move, so full reports cost each member O(N^2) bytes and parsing
 * per poll (at 100 members in 3 racks, 14 MB/s and a third of a core: docs/benchmarks/scale-sim.md); brief ones
 * O(N), and the lists travel only when a state is new to the poller. A node that does not know the parameter
 * answers in full, which the poller reads as before.
 *
 * @param self    the answering node's member URL
 * @param state   its topology state, or null when it has none yet
 * @param drained at joint: it has been at joint longer than the request timeout (no write coordinated under an
 *                older state can still be acknowledged); true at any other stage
 * @param sent    at joint: it has sent every record the move needs from it (trivially, if it is not in S)
 */
public record TopologyReport(String self, TopologyState state, boolean drained, boolean sent) {

    /** The brief form for a poller that already holds this very state, whose header is given. */
    public Map<String, Object> toBriefJson(String header) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("self", self);
        m.put("decided", true);
        m.put("same", true);
        m.put("header", header);
        m.put("drained", drained);
        m.put("sent", sent);
        return m;
    }

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
        return fromJson(m, null, null);
    }

    /**
     * Reads a report that may be the brief form: then its state is {@code known}, the state the poll named by
     * {@code knownHeader}; IllegalArgumentException if it is brief and names another one.
     */
    public static TopologyReport fromJson(Map<String, Object> m, TopologyState known, String knownHeader) {
        try {
            if (Boolean.TRUE.equals(m.get("same"))) {
                if (known == null || !string(m, "header").equals(knownHeader)) {
                    throw new IllegalArgumentException("a brief report of " + m.get("header")
                            + " answers a poll that named " + knownHeader);
                }
                return new TopologyReport(string(m, "self"), known, Boolean.TRUE.equals(m.get("drained")),
                        Boolean.TRUE.equals(m.get("sent")));
            }
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
