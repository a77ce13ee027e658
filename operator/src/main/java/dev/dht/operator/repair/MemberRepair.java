package dev.dht.operator.repair;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One member's answer to {@code GET /v0/admin/repair} (the node's contract with the operator, docs/cluster.md
 * "Repair: endpoints"), reduced to what the operator shows and decides on; or unknown when the member did not
 * answer usefully. Only promised fields are read.
 *
 * @param lastRoundAt        wall ms of the last round this member completed (0: none)
 * @param oldestRangeRepair  wall ms of the oldest last repair among its ranges (0: one never repaired)
 * @param rangesOutOfSync    ranges its last round found out of sync
 * @param bytesRepaired      bytes of records its rounds sent since it started
 * @param rebuild            its rebuild, if it reports one in progress (null when ready)
 * @param problem            why it is unknown (null when it answered)
 */
public record MemberRepair(
        long lastRoundAt,
        long oldestRangeRepair,
        long rangesOutOfSync,
        long bytesRepaired,
        Rebuild rebuild,
        String problem) {

    /**
     * A rebuild in progress: {@code deciding} (a new volume: asking whether the cluster is new) or
     * {@code rebuilding}, how far, and what it waits for.
     */
    public record Rebuild(
            String state, String reason, long rangesDone, long rangesTotal, long bytesReceived, String waitingFor) {

        /** "412/3072 ranges, 18 MiB received", or "waiting: ..." */
        public String describe() {
            if ("deciding".equals(state)) {
                return "starting on a new volume: asking the other members whether the cluster is new";
            }
            String progress = rangesDone + "/" + rangesTotal + " ranges, " + (bytesReceived >> 20) + " MiB received";
            return waitingFor == null ? progress : progress + "; waiting: " + waitingFor;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    public static MemberRepair unknown(String problem) {
        return new MemberRepair(0, 0, 0, 0, null, problem);
    }

    /**
     * This member's answer now, unknown, after a last answer that reported a rebuild: still rebuilding as far as
     * anyone knows (an unanswered poll under load is no news that the rebuild ended), shown with that last progress
     * and why there is no newer one. Without it a member that missed one poll showed Up and the cluster Ready for a
     * reconcile, and a roll or a scale held by the rebuild could have gone on.
     */
    public MemberRepair carryingRebuildOf(MemberRepair last) {
        if (known() || rebuilding() || last == null || !last.rebuilding()) {
            return this;
        }
        Rebuild r = last.rebuild();
        String why = "a newer report (its last poll got none: " + problem + ")";
        return new MemberRepair(
                0,
                0,
                0,
                0,
                new Rebuild(r.state(), r.reason(), r.rangesDone(), r.rangesTotal(), r.bytesReceived(), why),
                problem);
    }

    public boolean known() {
        return problem == null;
    }

    public boolean rebuilding() {
        return rebuild != null;
    }

    /** Reads an answer; a body that is not the contract's JSON gives an unknown report saying why. */
    public static MemberRepair fromJson(String body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return unknown("not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject() || !root.has("lastRound")) {
            return unknown("not a repair report");
        }
        JsonNode last = root.path("lastRound");
        JsonNode rebuild = root.path("rebuild");
        String state = rebuild.path("state").asText("ready");
        Rebuild r = "ready".equals(state)
                ? null
                : new Rebuild(
                        state,
                        text(rebuild, "reason"),
                        rebuild.path("rangesDone").asLong(0),
                        rebuild.path("rangesTotal").asLong(0),
                        rebuild.path("bytesReceived").asLong(0),
                        text(rebuild, "waitingFor"));
        return new MemberRepair(
                last.path("at").asLong(0),
                root.path("oldestRangeRepair").asLong(0),
                last.path("rangesOutOfSync").asLong(0),
                root.path("totals").path("bytesRepaired").asLong(0),
                r,
                null);
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.path(field);
        return v.isTextual() ? v.asText() : null;
    }
}
