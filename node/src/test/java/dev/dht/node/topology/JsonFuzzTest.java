package dev.dht.node.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The JSON layer reads what other members answer (the topology exchange), so it is fuzzed: random documents
 * written, read and written again come out the same, and random mutations of them, of real topology reports and of plain noise either
 * parse or fail with IllegalArgumentException: never another exception, never a stack overflow. The seeds are
 * fixed (a failure reproduces) and printed on failure.
 */
class JsonFuzzTest {
    private static final int DOCUMENTS = 3_000;
    private static final int MUTATIONS_PER_DOCUMENT = 8;

    @Test
    void randomDocumentsRoundTrip() {
        Random random = new Random(20261126L);
        for (int n = 0; n < DOCUMENTS; n++) {
            Object doc = value(random, 0);
            String text = Json.write(doc);
            assertThat(Json.write(Json.parse(text))).as(text).isEqualTo(text);
            assertThat(Json.write(Json.parse(" \n\t" + text + "\r\n ")))
                    .as("around blanks: " + text)
                    .isEqualTo(text);
        }
    }

    @Test
    void mutatedDocumentsParseOrFailWithIllegalArgumentOnly() {
        Random random = new Random(42L);
        List<String> seeds = new ArrayList<>();
        for (int n = 0; n < DOCUMENTS; n++) {
            seeds.add(Json.write(value(random, 0)));
        }
        seeds.addAll(reports());
        int parsed = 0;
        int refused = 0;
        for (String seed : seeds) {
            for (int m = 0; m < MUTATIONS_PER_DOCUMENT; m++) {
                String mutant = mutate(random, seed);
                try {
                    Json.parse(mutant);
                    parsed++;
                } catch (IllegalArgumentException expected) {
                    refused++;
                } catch (RuntimeException | StackOverflowError e) {
                    fail("Json.parse threw " + e + " for: " + mutant);
                }
            }
        }
        // not vacuous: the mutations hit both sides
        assertThat(parsed).isGreaterThan(seeds.size() / 10);
        assertThat(refused).isGreaterThan(seeds.size());
    }

    @Test
    void reportsFromMutatedAnswersAreReadOrRefusedWithIllegalArgumentOnly() {
        Random random = new Random(7L);
        int read = 0;
        for (String report : reports()) {
            for (int m = 0; m < 2_000; m++) {
                String mutant = mutate(random, report);
                try {
                    TopologyReport.fromJson(mutant);
                    read++;
                } catch (IllegalArgumentException expected) {
                    // refused, as a member's garbage answer must be
                } catch (RuntimeException e) {
                    fail("TopologyReport.fromJson threw " + e + " for: " + mutant);
                }
            }
        }
        assertThat(read).as("some mutants are still reports").isPositive();
    }

    @Test
    void deepNestingIsRefusedNotAStackOverflow() {
        for (String open : new String[] {"[", "{\"a\":"}) {
            String deep = open.repeat(200_000);
            assertThatThrownBy(() -> Json.parse(deep))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("nesting depth");
        }
        String ok = "[".repeat(Json.MAX_DEPTH) + "]".repeat(Json.MAX_DEPTH);
        assertThat(Json.parse(ok)).isInstanceOf(List.class);
    }

    @Test
    void onlyJsonWhitespaceDigitsAndEscapes() {
        for (String bad : new String[] {
            "\u00a01",
            "\u0661",
            "\"\\u+1a2\"",
            "\"\\u１２３４\"",
            "tru",
            "\"\\x\"",
            "[1,]",
            "{\"a\" 1}",
            "01a",
            "-",
            "{} x",
            "{\"a\":1,\"a\":2}"
        }) {
            assertThatThrownBy(() -> Json.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(Json.parse("\"\\u00e9\\n\"")).isEqualTo("é\n");
    }

    /** Real answers of GET /v0/internal/topology: stable, joint, none yet. */
    private static List<String> reports() {
        ClusterMembers a = ClusterMembers.parseList("http://a:8080");
        ClusterMembers ab = ClusterMembers.parseList("http://a:8080,http://b:8080");
        return List.of(
                Json.write(
                        new TopologyReport("http://a:8080", new TopologyState(3, Stage.STABLE, ab, null), true, false)
                                .toJson()),
                Json.write(new TopologyReport("http://a:8080", new TopologyState(4, Stage.JOINT, a, ab), false, true)
                        .toJson()),
                Json.write(new TopologyReport("http://c:8080", null, false, false).toJson()));
    }

    private static Object value(Random r, int depth) {
        int kind = depth > 4 ? r.nextInt(4) : r.nextInt(7);
        return switch (kind) {
            case 0 -> string(r);
            case 1 -> r.nextBoolean() ? r.nextLong() : (long) r.nextInt(1000) - 500;
            case 2 -> r.nextBoolean();
            case 3 -> null;
            case 4, 5 -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    m.put(string(r), value(r, depth + 1));
                }
                yield m;
            }
            default -> {
                List<Object> l = new ArrayList<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    l.add(value(r, depth + 1));
                }
                yield l;
            }
        };
    }

    private static String string(Random r) {
        StringBuilder sb = new StringBuilder();
        for (int i = r.nextInt(12); i > 0; i--) {
            int pick = r.nextInt(10);
            sb.append(
                    switch (pick) {
                        case 0 -> (char) r.nextInt(0x20); // control characters: written as escapes
                        case 1 -> "\"\\/".charAt(r.nextInt(3));
                        case 2 -> (char) (0x80 + r.nextInt(0xD7FF - 0x80)); // beyond ASCII
                        default -> (char) ('a' + r.nextInt(26));
                    });
        }
        return sb.toString();
    }

    private static final String NOISE = "{}[]:,\"\\-0123456789eE.+truefalsn \t\n\u0000\u00a0\u0661";

    private static String mutate(Random r, String s) {
        StringBuilder sb = new StringBuilder(s);
        for (int edits = 1 + r.nextInt(4); edits > 0; edits--) {
            int at = sb.isEmpty() ? 0 : r.nextInt(sb.length());
            switch (r.nextInt(6)) {
                case 0 -> sb.insert(at, NOISE.charAt(r.nextInt(NOISE.length())));
                case 1 -> {
                    if (!sb.isEmpty()) {
                        sb.deleteCharAt(at);
                    }
                }
                case 2 -> {
                    if (!sb.isEmpty()) {
                        sb.setCharAt(at, NOISE.charAt(r.nextInt(NOISE.length())));
                    }
                }
                case 3 -> sb.setLength(at); // truncated answer
                case 4 -> {
                    int end = Math.min(sb.length(), at + 1 + r.nextInt(20));
                    sb.insert(at, sb.substring(at, end)); // a repeated slice
                }
                default -> sb.insert(at, "[".repeat(r.nextInt(100)));
            }
        }
        return sb.toString();
    }
}
