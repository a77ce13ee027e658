package dev.dht.operator.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/** Condition types, and building a condition that keeps its transition time while its status holds. */
public final class Conditions {
    public static final String READY = "Ready";
    public static final String PROGRESSING = "Progressing";
    public static final String DEGRADED = "Degraded";
    /** True while the operator holds back a spec change (reason and message say which and why). */
    public static final String REFUSED = "Refused";
    /** True when some range was not repaired for two repair intervals (Unknown before any member reported). */
    public static final String REPAIR_OVERDUE = "RepairOverdue";
    /** Whether the racks let the cluster lose one rack (a zone) and keep a copy of every key elsewhere. */
    public static final String FAILURE_DOMAINS = "FailureDomains";

    private Conditions() {}

    public static Condition condition(
            List<Condition> previous,
            String type,
            boolean status,
            String reason,
            String message,
            Long observedGeneration,
            Instant now) {
        return condition(previous, type, status ? "True" : "False", reason, message, observedGeneration, now);
    }

    /** @param statusText True, False or Unknown */
    public static Condition condition(
            List<Condition> previous,
            String type,
            String statusText,
            String reason,
            String message,
            Long observedGeneration,
            Instant now) {
        String since = find(previous, type)
                .filter(c -> statusText.equals(c.getStatus()) && c.getLastTransitionTime() != null)
                .map(Condition::getLastTransitionTime)
                .orElse(now.truncatedTo(ChronoUnit.SECONDS).toString());
        return new ConditionBuilder()
                .withType(type)
                .withStatus(statusText)
                .withReason(reason)
                .withMessage(message)
                .withObservedGeneration(observedGeneration)
                .withLastTransitionTime(since)
                .build();
    }

    public static Optional<Condition> find(List<Condition> conditions, String type) {
        return conditions == null
                ? Optional.empty()
                : conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    public static boolean isTrue(List<Condition> conditions, String type) {
        return find(conditions, type).map(c -> "True".equals(c.getStatus())).orElse(false);
    }
}
