package dev.dht.operator.security;

import java.time.Duration;
import java.util.regex.Pattern;

/** Durations of the spec: a number and a unit, m, h or d (the schema's pattern). */
public final class Durations {
  private static final Pattern FORMAT = Pattern.compile("([0-9]{1,9})(m|h|d)");

  private Durations() {}

  public static Duration parse(String field, String value) {
    var m = value == null ? null : FORMAT.matcher(value.trim());
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException(field + " is '" + value + "', not a duration such as 90d, 12h or 30m");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }
}
