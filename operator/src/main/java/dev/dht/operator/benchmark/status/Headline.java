package dev.dht.operator.benchmark.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dht.operator.api.v1alpha1.TapeResult;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The headline a load Job leaves as its termination message (at most 4 KiB, written by
 * scripts/incluster/benchjob.py):
 * <pre>{"tapes": {"put-unique": {"rps": 199.8, "p99_ms": 3.21, "errors": 0, "dropped": 0, "saturation_rps": null}, ...},
 *  "flamegraphs": 3, "problems": ["dht-1 cpu: node busy for 30s"]}</pre>
 * Tapes keep the order they ran in.
 */
public record Headline(List<TapeResult> tapes, int flamegraphs, List<String> problems) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The headline, or empty when the message is not one (the Job died before writing it: the log's tail). */
    public static Optional<Headline> parse(String message) {
        if (message == null || message.isBlank()) {
            return Optional.empty();
        }
        JsonNode root;
        try {
            root = JSON.readTree(message);
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
        if (root == null || !root.path("tapes").isObject()) {
            return Optional.empty();
        }
        var tapes = new ArrayList<TapeResult>();
        root.path("tapes").fields().forEachRemaining(e -> {
            JsonNode t = e.getValue();
            tapes.add(new TapeResult(
                    e.getKey(),
                    number(t, "rps", 1),
                    number(t, "p99_ms", 3),
                    count(t, "errors"),
                    count(t, "dropped"),
                    number(t, "saturation_rps", 1)));
        });
        var problems = new ArrayList<String>();
        root.path("problems").forEach(p -> problems.add(p.asText()));
        return Optional.of(new Headline(tapes, root.path("flamegraphs").asInt(0), problems));
    }

    private static Double number(JsonNode tape, String field, int decimals) {
        JsonNode value = tape.get(field);
        if (value == null || !value.isNumber()) {
            return null;
        }
        // Rounded so that the status reads well and equal runs give equal figures.
        return BigDecimal.valueOf(value.asDouble())
                .setScale(decimals, RoundingMode.HALF_UP)
                .doubleValue();
    }

    private static Long count(JsonNode tape, String field) {
        JsonNode value = tape.get(field);
        return value == null || !value.isNumber() ? null : value.asLong();
    }
}
