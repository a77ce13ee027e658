package dev.dht.node.topology;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonTest {

    @Test
    void writesAndReadsBackNestedValues() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", "idle");
        m.put("n", -42L);
        m.put("big", Long.MAX_VALUE);
        m.put("ok", true);
        m.put("none", null);
        m.put("list", List.of("a\"b", "c\\d", "e\nf\tg\u0001"));
        m.put("nested", Map.of("empty", List.of(), "obj", Map.of()));
        String text = Json.write(m);
        assertThat(text).startsWith("{\"state\":\"idle\",\"n\":-42,");
        assertThat(Json.parse(text)).isEqualTo(m);
        assertThat(Json.parse(" { \"a\" : [ 1 , 2 ] , \"b\" : \"\\u00e9\\/\" } "))
                .isEqualTo(Map.of("a", List.of(1L, 2L), "b", "é/"));
    }

    @Test
    void rejectsWhatItDoesNotExpect() {
        List<String> bad = new ArrayList<>(Arrays.asList("", "{", "[1,", "{\"a\"}", "{\"a\":1,}", "1.5", "1e3", "tru",
                "\"abc", "{} x", "{a:1}", "[1 2]", "\"\\x\"", "-"));
        for (String b : bad) {
            assertThatThrownBy(() -> Json.parse(b)).as(b).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> Json.parseObject("[1]")).hasMessageContaining("object");
    }
}
