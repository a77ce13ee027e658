package dev.dht.node.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the SIZE and DUR values of the node contract (binary sizes, Kubernetes-style quantities pass through). */
public final class Units {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(?:([kmgt])(i?b?)|(b?))", Pattern.CASE_INSENSITIVE);
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)", Pattern.CASE_INSENSITIVE);

    private Units() {}

    /** "16MiB", "256Mi", "64m", "1g", "4096" -> bytes. k/m/g/t are binary (1024-based) with or without i/B. */
    public static long parseSize(String text) {
        Matcher m = matched(SIZE, text, "size (examples: 4096, 64k, 16MiB, 256Mi, 1g)");
        long base = number(m, text);
        String unit = m.group(2) == null ? "" : m.group(2).toLowerCase(Locale.ROOT);
        int shift = switch (unit) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        if (shift > 0 && base > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
        return base << shift;
    }

    /** "500ms", "1s", "2m", "1h", "1d" -> Duration. */
    public static Duration parseDuration(String text) {
        Matcher m = matched(DURATION, text, "duration (examples: 500ms, 1s, 2m, 1h, 1d)");
        long n = number(m, text);
        return switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    /** The text (trimmed) matched by a unit's pattern, or IllegalArgumentException saying what it is not. */
    private static Matcher matched(Pattern unit, String text, String what) {
        Matcher m = unit.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a " + what);
        }
        return m;
    }

    /** The number of a matched value (group 1, digits only): too many digits for a long is too large. */
    private static long number(Matcher m, String text) {
        try {
            return Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is too large", e);
        }
    }

    /** The shortest exact SIZE spelling of a byte count, for --help and logs. */
    public static String formatSize(long bytes) {
        String[] units = {"", "KiB", "MiB", "GiB", "TiB"};
        int i = 0;
        long v = bytes;
        while (i < units.length - 1 && v != 0 && v % 1024 == 0) {
            v /= 1024;
            i++;
        }
        return v + units[i];
    }

    /** The shortest exact DUR spelling, for --help and logs. */
    public static String formatDuration(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000L == 0 && ms != 0) return ms / 86_400_000L + "d";
        if (ms % 3_600_000L == 0 && ms != 0) return ms / 3_600_000L + "h";
        if (ms % 60_000L == 0 && ms != 0) return ms / 60_000L + "m";
        if (ms % 1_000L == 0 && ms != 0) return ms / 1_000L + "s";
        return ms + "ms";
    }
}
