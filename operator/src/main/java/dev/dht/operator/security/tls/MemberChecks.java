package dev.dht.operator.security.tls;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What the operator saw on each member's member port during a CA replacement: whether a member already accepts a
 * client certificate of the new CA ({@link Check#MEMBERS_TRUST_CA}), or already serves the certificate the new CA
 * signed ({@link Check#MEMBERS_SERVE_CERTIFICATE}). The members reload their files on their own, some time after
 * the Secret changed; these checks are how the operator knows they did, instead of guessing a delay.
 *
 * @param byPod every existing member pod's result
 */
public record MemberChecks(Map<String, Result> byPod) {
    public enum Check {
        NONE,
        MEMBERS_TRUST_CA,
        MEMBERS_SERVE_CERTIFICATE
    }

    /** @param detail what was seen, for the status ("accepted", "serves the old certificate", "timed out") */
    public record Result(boolean ok, String detail) {}

    public MemberChecks {
        byPod = new TreeMap<>(byPod);
    }

    public static MemberChecks none() {
        return new MemberChecks(Map.of());
    }

    /** Every existing member passed (no member pod at all passes: new pods mount the current Secret). */
    public boolean allOk() {
        return byPod.values().stream().allMatch(Result::ok);
    }

    /** "dht-1 (timed out), dht-2 (serves the old certificate)". */
    public String waitingFor() {
        return byPod.entrySet().stream()
                .filter(e -> !e.getValue().ok())
                .map(e -> e.getKey() + " (" + e.getValue().detail() + ")")
                .collect(Collectors.joining(", "));
    }
}
