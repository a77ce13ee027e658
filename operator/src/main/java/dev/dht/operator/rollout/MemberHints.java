package dev.dht.operator.rollout;

/**
 * How many hints a member still holds for other members ({@code dht_hints_pending} on its {@code /metrics}, which
 * every release since 0.1.0 exports), or why that is unknown. A member rolled while another still holds hints for
 * it would be missing those writes on one more replica.
 *
 * @param pending hints stored and not yet delivered (-1: unknown)
 * @param problem why it is unknown; null otherwise
 */
public record MemberHints(long pending, String problem) {
    static final String METRIC = "dht_hints_pending";

    public static MemberHints unknown(String problem) {
        return new MemberHints(-1, problem);
    }

    /** Reads the metric from a Prometheus text exposition. */
    public static MemberHints fromMetrics(int status, String body) {
        if (status != 200) {
            return unknown("/metrics answered HTTP " + status);
        }
        for (String line : body == null ? new String[0] : body.split("\n")) {
            if (line.startsWith(METRIC + " ") || line.startsWith(METRIC + "{")) {
                String value = line.substring(line.lastIndexOf(' ') + 1).strip();
                try {
                    return new MemberHints((long) Double.parseDouble(value), null);
                } catch (NumberFormatException e) {
                    return unknown(METRIC + " is not a number: " + value);
                }
            }
        }
        return unknown("no " + METRIC + " in /metrics");
    }

    public boolean known() {
        return pending >= 0;
    }
}
