package dev.dht.operator.upgrade;

import dev.dht.operator.nodeadmin.AdminAnswer;

/**
 * A member's answer to {@code GET /v0/admin/feature-level}: its release, the cluster feature level it runs at and the
 * highest its release knows. A member of 0.1.0 has no such endpoint (404): it runs 0.1.0 at level 1.
 *
 * @param release null when the member did not answer (then {@code problem} says why)
 */
public record MemberRelease(String release, int featureLevel, int maxFeatureLevel, String problem) {
    /** The release before the feature level existed: its members answer 404 and know level 1 only. */
    public static final String FIRST_RELEASE = "0.1.0";

    public static MemberRelease of(AdminAnswer answer) {
        if (answer.status() == 404) {
            return new MemberRelease(FIRST_RELEASE, 1, 1, null);
        }
        if (answer.status() != 200 || answer.string("release") == null || answer.number("featureLevel") < 1) {
            return unknown(answer.reason());
        }
        return new MemberRelease(
                answer.string("release"),
                (int) answer.number("featureLevel"),
                (int) Math.max(answer.number("featureLevel"), answer.number("maxFeatureLevel")),
                null);
    }

    public static MemberRelease unknown(String problem) {
        return new MemberRelease(null, 0, 0, problem);
    }

    public boolean known() {
        return release != null;
    }
}
