package dev.dht.operator.repair;

import dev.dht.operator.api.v1alpha1.RepairStatus;
import dev.dht.operator.model.Member;
import dev.dht.operator.model.RepairSchedule;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.TreeMap;

/**
 * The cluster's repair as its members report it: the status block, which members rebuild (and how far), and
 * whether repair is overdue. Pure: equal reports give an equal view.
 *
 * @param status     status.repair (null when no member answered)
 * @param rebuilding member to its rebuild, for the members that report one (or reported one and did not answer since)
 * @param overdue    the RepairOverdue condition: True, False or Unknown (no member answered)
 * @param reason     the condition's reason
 * @param message    the condition's message
 */
public record RepairView(
        RepairStatus status,
        Map<Member, MemberRepair.Rebuild> rebuilding,
        String overdue,
        String reason,
        String message) {

    /** Nothing reported yet (no member polled): repair shown as unknown. */
    public static RepairView none() {
        return new RepairView(null, Map.of(), "Unknown", "NoReports", "no member has reported on repair yet");
    }

    /**
     * @param reports   the members' reports
     * @param createdAt when the DhtCluster was created (a range never repaired is overdue only once the cluster is
     *                  older than the threshold)
     */
    public static RepairView of(
            Map<Member, MemberRepair> reports, RepairSchedule schedule, Instant createdAt, Instant now) {
        var rebuilding = new TreeMap<Member, MemberRepair.Rebuild>();
        long last = 0;
        long oldest = Long.MAX_VALUE;
        boolean neverRepaired = false;
        long outOfSync = 0;
        long bytes = 0;
        int known = 0;
        for (var e : reports.entrySet()) {
            MemberRepair r = e.getValue();
            if (r.rebuilding()) { // an unknown report may carry the member's last known rebuild (carryingRebuildOf)
                rebuilding.put(e.getKey(), r.rebuild());
            }
            if (!r.known()) {
                continue;
            }
            known++;
            last = Math.max(last, r.lastRoundAt());
            if (r.oldestRangeRepair() == 0) {
                neverRepaired = true;
            } else {
                oldest = Math.min(oldest, r.oldestRangeRepair());
            }
            outOfSync += r.rangesOutOfSync();
            bytes += r.bytesRepaired();
        }
        if (known == 0) {
            return new RepairView(null, rebuilding, "Unknown", "NoReports", "no member answered GET /v0/admin/repair");
        }
        var status = new RepairStatus();
        status.enabled = schedule.enabled();
        status.lastCompleteRound = last == 0 ? null : time(last);
        status.oldestRangeRepair = neverRepaired || oldest == Long.MAX_VALUE ? null : time(oldest);
        status.rangesOutOfSync = outOfSync;
        status.bytesRepaired = bytes;
        status.membersReporting = known;
        if (!schedule.enabled()) {
            return new RepairView(
                    status,
                    rebuilding,
                    "False",
                    "RepairDisabled",
                    "spec.repair.enabled is false: replicas are not compared, tombstones are not purged");
        }
        // Overdue: some range not repaired within two intervals (a round that keeps failing: a member down, a move
        // that does not end). Tombstones of those ranges are not purged meanwhile.
        var threshold = schedule.interval().multipliedBy(2);
        long since = neverRepaired ? createdAt.toEpochMilli() : oldest;
        boolean overdue = now.toEpochMilli() - since > threshold.toMillis();
        String what =
                neverRepaired ? "some range was never repaired" : "the oldest range repair is from " + time(oldest);
        return overdue
                ? new RepairView(
                        status,
                        rebuilding,
                        "True",
                        "RepairOverdue",
                        what + ", more than two intervals ("
                                + threshold
                                + ") ago: a member may be down or a round failing (see each member's GET /v0/admin/repair);"
                                + " tombstones of those ranges are not purged until they are repaired")
                : new RepairView(
                        status, rebuilding, "False", "RepairOnSchedule", what + "; interval " + schedule.interval());
    }

    private static String time(long millis) {
        return Instant.ofEpochMilli(millis).truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
