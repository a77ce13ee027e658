package dev.dht.node.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
    record File(String name, long size) {}

    record Manifest(
            int format, String id, String encryption, List<File> files, Map<String, String> racks, boolean complete) {}

    @Test
    void recordsAreWrittenInDeclarationOrderWithoutNullsAndReadBack() {
        Manifest m =
                new Manifest(1, "b\"1\\\n\u0001é/", null, List.of(new File("000012.sst", Long.MAX_VALUE)), null, true);
        String text = Json.write(m);
        // the bytes the hand-written writer of 0.1.0 produced, less its explicit nulls (its readers take absent
        // and null alike)
        assertThat(text)
                .isEqualTo("{\"format\":1,\"id\":\"b\\\"1\\\\\\n\\u0001é/\",\"files\":[{\"name\":"
                        + "\"000012.sst\",\"size\":9223372036854775807}],\"complete\":true}");
        assertThat(Json.read(text, Manifest.class)).isEqualTo(m);
        assertThat(Json.read(" { \"racks\" : { \"u\" : \"r\" } , \"unknown\" : [ 1 , { } ] } ", Manifest.class))
                .as("unknown fields are skipped, absent ones are null or false")
                .isEqualTo(new Manifest(0, null, null, null, Map.of("u", "r"), false));
    }

    @Test
    void mapsAndListsAsBefore() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", "idle");
        m.put("n", -42L);
        m.put("ok", true);
        m.put("list", List.of("a", 1L));
        assertThat(Json.write(m)).isEqualTo("{\"state\":\"idle\",\"n\":-42,\"ok\":true,\"list\":[\"a\",1]}");
        assertThat(Json.parseObject(" { \"a\" : [ 1 , 2 ] , \"b\" : \"\\u00e9\\/\" } "))
                .isEqualTo(Map.of("a", List.of(1, 2), "b", "é/"));
    }

    @Test
    void rejectsWhatItDoesNotExpectWithIllegalArgument() {
        List<String> bad = new ArrayList<>(Arrays.asList(
                "",
                "{",
                "[1,",
                "{\"a\"}",
                "{\"a\":1,}",
                "tru",
                "\"abc",
                "{} x",
                "{a:1}",
                "[1 2]",
                "\"\\x\"",
                "-",
                "{\"a\":1,\"a\":2}"));
        for (String b : bad) {
            assertThatThrownBy(() -> Json.parse(b)).as(b).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> Json.parseObject("[1]")).hasMessageContaining("object");
        assertThatThrownBy(() -> Json.read("{\"files\":3}", Manifest.class))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Json.read("{\"format\":1} {}", Manifest.class)).hasMessageContaining("trailing");
    }
}
