package dev.dht.node.topology;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.json.Json;
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

    /**
     * The report as it travels: every field but {@code self}, {@code decided}, {@code drained} and {@code sent} is
     * left out when null (the brief form has {@code same} and {@code header}; the full one the state).
     */
    public record Wire(
            String self,
            boolean decided,
            Boolean same,
            Long epoch,
            String stage,
            String phase,
            Long version,
            String header,
            MemberSet stable,
            MemberSet target,
            boolean drained,
            boolean sent) {}

    /** A member set: {@code racks} absent without racks (the report older members read). */
    public record MemberSet(String id, List<String> members, Map<String, String> racks) {}

    /** The brief form for a poller that already holds this very state, whose header is given. */
    public Wire toBriefJson(String header) {
        return new Wire(self, true, true, null, null, null, null, header, null, null, drained, sent);
    }

    public Wire toJson() {
        if (state == null) {
            return new Wire(self, false, null, null, null, null, null, null, null, null, drained, sent);
        }
        return new Wire(
                self,
                true,
                null,
                state.epoch(),
                state.stage().jsonName(),
                state.moving() ? "joint" : "stable",
                state.version(),
                state.header(),
                set(state.stable()),
                state.target() == null ? null : set(state.target()),
                drained,
                sent);
    }

    private static MemberSet set(ClusterMembers members) {
        return new MemberSet(TopologyId.of(members), members.urls(), racksOrNone(members));
    }

    /** The members' racks, or null (left out) when they have none. */
    static Map<String, String> racksOrNone(ClusterMembers members) {
        return members.hasRacks() ? members.racks() : null;
    }

    /** Reads a report; IllegalArgumentException if it is not one (or its ids do not match its member lists). */
    public static TopologyReport fromJson(String json) {
        return fromJson(json, null, null);
    }

    /**
     * Reads a report that may be the brief form: then its state is {@code known}, the state the poll named by
     * {@code knownHeader}; IllegalArgumentException if it is brief and names another one.
     */
    public static TopologyReport fromJson(String json, TopologyState known, String knownHeader) {
        Wire m = Json.read(json, Wire.class);
        try {
            if (m.self() == null) {
                throw new IllegalArgumentException("missing string 'self'");
            }
            if (Boolean.TRUE.equals(m.same())) {
                if (known == null || m.header() == null || !m.header().equals(knownHeader)) {
                    throw new IllegalArgumentException(
                            "a brief report of " + m.header() + " answers a poll that named " + knownHeader);
                }
                return new TopologyReport(m.self(), known, m.drained(), m.sent());
            }
            TopologyState state = null;
            if (m.decided()) {
                if (m.epoch() == null || m.stage() == null) {
                    throw new IllegalArgumentException("a decided report needs an epoch and a stage");
                }
                state = new TopologyState(
                        m.epoch(),
                        Stage.ofJson(m.stage()),
                        members(m.stable()),
                        m.target() == null ? null : members(m.target()));
            }
            return new TopologyReport(m.self(), state, m.drained(), m.sent());
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) { // a null where a value belongs: garbage all the same
            throw new IllegalArgumentException("not a topology report: " + e, e);
        }
    }

    private static ClusterMembers members(MemberSet set) {
        if (set == null) {
            throw new IllegalArgumentException("a member set must be an object with id and members");
        }
        if (set.members() == null || set.members().isEmpty()) {
            throw new IllegalArgumentException("a member set needs a non-empty members list");
        }
        ClusterMembers members = ClusterMembers.of(set.members(), racks(set.racks()));
        if (set.id() != null && !set.id().equals(TopologyId.of(members))) {
            throw new IllegalArgumentException("member set id " + set.id() + " does not match its members");
        }
        return members;
    }

    /** A url -> rack object, or none (absent or null). */
    static Map<String, String> racks(Map<String, String> racks) {
        return racks == null ? Map.of() : racks;
    }
}
