package dev.dht.operator.api.v1alpha1;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The spec's duration syntax: a number and a unit, ms, s, m, h or d (the schemas' patterns allow a subset each).
 * Here, beside the types, so that every builder (model/, security/) reads durations the same way.
 */
public final class SpecDuration {
    private static final Pattern DURATION = Pattern.compile("([0-9]+)(ms|s|m|h|d)");

    private SpecDuration() {}

    /** @throws IllegalArgumentException saying which field is not a duration */
    public static Duration parse(String field, String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException(field + " is '" + text + "', not a duration such as 30m, 6h or 1d");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }
}
