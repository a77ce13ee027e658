package dev.dht.operator.upgrade;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the cluster's feature level is and what it should be (docs/upgrading.md), from each member's release report:
 * which members to raise now, and the FeatureLevel condition. Pure.
 *
 * <p>The target is spec.featureLevel when set; otherwise the highest level every member's release supports, or
 * the level the members run at while spec.upgrade.holdFeatureLevel keeps a rollback window open. Nothing is raised
 * unless every member answered, every member's release supports the target, and the cluster is Ready (the roll is
 * done, every member serving): a level raised with a member of an older release would lock that member out.
 *
 * @param release  the one release every member runs; empty while they differ or one did not answer
 * @param level    the lowest level a member runs at (empty until one answered)
 * @param target   the level the cluster should run at (empty while it cannot be known)
 * @param toRaise  the members (pod names) to raise to the target now
 */
public record FeatureLevelPlan(
        String release,
        Optional<Integer> level,
        Optional<Integer> target,
        List<String> toRaise,
        boolean atTarget,
        String reason,
        String message) {
    public static final String CONDITION = "FeatureLevel";

    /**
     * @param members   the cluster's members (pod names), each of which must report
     * @param reports   the reports of the ready members, by pod name
     * @param specLevel spec.featureLevel (null: automatic)
     * @param hold      spec.upgrade.holdFeatureLevel
     * @param ready     whether the cluster is Ready: the roll is done and every member serves
     */
    public static FeatureLevelPlan decide(
            List<String> members, Map<String, MemberRelease> reports, Integer specLevel, boolean hold, boolean ready) {
        var known = new TreeMap<String, MemberRelease>();
        var silent = new TreeMap<String, String>();
        for (String pod : members) {
            var r = reports.get(pod);
            if (r != null && r.known()) {
                known.put(pod, r);
            } else {
                silent.put(pod, r == null ? "not ready" : r.problem());
            }
        }
        var releases =
                known.values().stream().map(MemberRelease::release).distinct().toList();
        String release = silent.isEmpty() && releases.size() == 1 ? releases.get(0) : "";
        Optional<Integer> level =
                known.values().stream().map(MemberRelease::featureLevel).min(Integer::compare);
        if (members.isEmpty() || !silent.isEmpty()) {
            return new FeatureLevelPlan(
                    release,
                    level,
                    Optional.ofNullable(specLevel),
                    List.of(),
                    false,
                    "WaitingForMembers",
                    "waiting for every member's release before any feature level change: " + describe(silent));
        }
        int lowest = level.orElseThrow();
        int supported = known.values().stream()
                .mapToInt(MemberRelease::maxFeatureLevel)
                .min()
                .orElseThrow();
        int target;
        String why;
        if (specLevel != null) {
            target = specLevel;
            why = "spec.featureLevel";
        } else if (hold) {
            target = lowest;
            why = "spec.upgrade.holdFeatureLevel";
        } else {
            target = supported;
            why = "the highest level every member's release supports";
        }
        var below = known.entrySet().stream()
                .filter(e -> e.getValue().featureLevel() < target)
                .map(Map.Entry::getKey)
                .toList();
        if (below.isEmpty()) {
            String held = hold && specLevel == null && supported > lowest
                    ? " (held by spec.upgrade.holdFeatureLevel:" + " the members' releases support " + supported
                            + "; the previous release can still be rolled back to)"
                    : "";
            return new FeatureLevelPlan(
                    release,
                    level,
                    Optional.of(target),
                    List.of(),
                    true,
                    held.isEmpty() ? "AtTarget" : "Held",
                    "every member runs at feature level " + lowest + held);
        }
        if (supported < target) {
            var old = new TreeMap<String, String>();
            known.forEach((pod, r) -> {
                if (r.maxFeatureLevel() < target) {
                    old.put(pod, r.release() + ", up to level " + r.maxFeatureLevel());
                }
            });
            return waiting(
                    release,
                    level,
                    target,
                    why,
                    "WaitingForRelease",
                    "every member runs a release that supports it: " + describe(old));
        }
        if (!ready) {
            return waiting(release, level, target, why, "WaitingForRoll", "the roll is done and every member is Ready");
        }
        return new FeatureLevelPlan(
                release,
                level,
                Optional.of(target),
                below,
                false,
                "Raising",
                "raising the feature level to " + target + " (" + why + ") on " + String.join(", ", below));
    }

    /** Feature level {@code target} (chosen for {@code why}) is not raised on any member until {@code until}. */
    private static FeatureLevelPlan waiting(
            String release, Optional<Integer> level, int target, String why, String reason, String until) {
        return new FeatureLevelPlan(
                release,
                level,
                Optional.of(target),
                List.of(),
                false,
                reason,
                "feature level " + target + " (" + why + ") waits until " + until);
    }

    /** Writes the releases, levels and the condition into a computed status. */
    public void describe(
            dev.dht.operator.api.v1alpha1.DhtClusterStatus status,
            Map<String, MemberRelease> reports,
            List<io.fabric8.kubernetes.api.model.Condition> previous,
            java.time.Instant now) {
        status.release = release;
        status.featureLevel = level.orElse(null);
        for (var member : status.members) {
            var r = reports.get(member.name);
            if (r != null && r.known()) {
                member.release = r.release();
                member.featureLevel = r.featureLevel();
            }
        }
        status.conditions.add(dev.dht.operator.status.Conditions.condition(
                previous, CONDITION, atTarget, reason, message, status.observedGeneration, now));
    }

    private static String describe(Map<String, String> byPod) {
        var parts = new java.util.ArrayList<String>();
        byPod.forEach((pod, why) -> parts.add(pod + " (" + why + ")"));
        return String.join(", ", parts);
    }
}
