package dev.dht.operator.scaling;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dht.operator.model.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.TreeSet;

/**
 * One member's answer to {@code GET /v0/admin/movement} (the node's contract with the operator, docs/cluster.md
 * "Endpoints"), reduced to what the operator decides on and shows; or {@link State#UNKNOWN} when the member did not
 * answer usefully. Only fields the contract promises are read; fields it adds later are ignored.
 *
 * @param members    the member list the node serves (its target while moving), canonical URLs
 * @param keysLeft   records the node still has to scan and send (its estimate)
 * @param problem    why the state is unknown (connection refused, timeout, bad answer); null otherwise
 */
public record MemberMovement(
        State state,
        boolean member,
        String phase,
        List<String> members,
        long keysLeft,
        long bytesLeft,
        boolean cleanupPending,
        boolean cleanupRunning,
        String waitingFor,
        String problem) {

    public enum State {
        IDLE,
        MOVING,
        UNKNOWN;

        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    public MemberMovement {
        members = members == null ? List.of() : List.copyOf(members);
    }

    public static MemberMovement unknown(String problem) {
        return new MemberMovement(State.UNKNOWN, false, null, List.of(), 0, 0, false, false, null, problem);
    }

    /** Reads an answer; a body that is not the contract's JSON gives an unknown state saying why. */
    public static MemberMovement fromJson(String body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return unknown("not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            return unknown("not a JSON object");
        }
        State state = switch (root.path("state").asText("")) {
            case "idle" -> State.IDLE;
            case "moving" -> State.MOVING;
            default -> null;
        };
        if (state == null) {
            return unknown("no \"state\": \"idle\" or \"moving\" in the answer");
        }
        JsonNode topology = root.path("topology");
        var members = new ArrayList<String>();
        topology.path("members").forEach(m -> members.add(m.asText()));
        JsonNode cleanup = root.path("cleanup");
        JsonNode waiting = root.path("waitingFor");
        return new MemberMovement(
                state,
                root.path("member").asBoolean(false),
                topology.path("phase").isTextual() ? topology.path("phase").asText() : null,
                members,
                Math.max(0, root.path("keys").path("left").asLong(0)),
                Math.max(0, root.path("bytes").path("left").asLong(0)),
                cleanup.path("pending").asBoolean(false),
                cleanup.path("running").asBoolean(false),
                waiting.isTextual() ? waiting.asText() : null,
                null);
    }

    /**
     * Done with the topology {@code expected}: idle, stable, and serving exactly that member list (a node that has
     * not seen the new list yet is idle too, on the old one).
     */
    public boolean idleOn(List<String> expected) {
        return state == State.IDLE
                && "stable".equals(phase)
                && canonical(members).equals(canonical(expected));
    }

    /** No cleanup waiting or running (a leaving member drops everything it held once the move is over). */
    public boolean cleanedUp() {
        return !cleanupPending && !cleanupRunning;
    }

    /** Short text for the status: "idle", "moving (1200 keys left)", "unknown (connection refused)". */
    public String describe() {
        return switch (state) {
            case IDLE -> "idle";
            case MOVING -> "moving (" + keysLeft + " keys left" + (waitingFor != null ? "; " + waitingFor : "") + ")";
            case UNKNOWN -> "unknown (" + Objects.requireNonNullElse(problem, "no answer") + ")";
        };
    }

    /**
     * Member URLs compared as the node compares them: a set of lower-case base URLs without a trailing slash (a line's
     * rack, RACK=URL, left out: a member's rack never changes, so the URLs say which members are listed).
     */
    static TreeSet<String> canonical(List<String> urls) {
        var out = new TreeSet<String>();
        for (String url : urls) {
            String u = Topology.urlOf(url).toLowerCase(Locale.ROOT);
            out.add(u.endsWith("/") ? u.substring(0, u.length() - 1) : u);
        }
        return out;
    }
}
