package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.Defaults;
import dev.dht.operator.api.v1alpha1.RepairSpec;
import java.time.Duration;
import java.util.Optional;

/**
 * spec.repair with its defaults applied and checked against the tombstone grace: the members repair every
 * interval, and a tombstone is purged only after every replica of its range was repaired since it was written, so
 * an interval longer than half the grace would keep tombstones well past it.
 *
 * @param interval the node's --repair-interval (zero when disabled)
 * @param rate     the node's --repair-rate, bytes per second
 */
public record RepairSchedule(boolean enabled, Duration interval, long rate) {
    static RepairSchedule from(RepairSpec spec, Optional<String> tombstoneGrace) {
        boolean enabled = spec == null || spec.enabled == null || spec.enabled;
        String intervalText = spec != null && spec.interval != null && !spec.interval.isBlank()
                ? spec.interval.trim()
                : Defaults.REPAIR_INTERVAL;
        Duration interval = ClusterModel.duration("spec.repair.interval", intervalText);
        Duration grace =
                ClusterModel.duration("spec.server.tombstoneGrace", tombstoneGrace.orElse(Defaults.TOMBSTONE_GRACE));
        if (interval.isZero()) {
            throw new InvalidSpecException("spec.repair.interval is " + intervalText
                    + ": it must be positive (to switch" + " repair off, set spec.repair.enabled to false)");
        }
        if (enabled && interval.compareTo(grace.dividedBy(2)) > 0) {
            throw new InvalidSpecException("spec.repair.interval (" + intervalText + ") must be at most half of the"
                    + " tombstone grace (" + tombstoneGrace.orElse(Defaults.TOMBSTONE_GRACE)
                    + "): tombstones are purged only"
                    + " after every replica was repaired since they were written. Shorten the interval or lengthen"
                    + " spec.server.tombstoneGrace");
        }
        long rate = ClusterModel.bytes(
                        "spec.repair.rate", spec != null && spec.rate != null ? spec.rate : Defaults.REPAIR_RATE)
                .orElseThrow();
        return new RepairSchedule(enabled, interval, rate);
    }

    /** The node's --repair-interval: zero (only on request) when repair is off. */
    public String nodeInterval() {
        return enabled ? interval.toSeconds() + "s" : "0s";
    }
}
