package dev.dht.node.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The node's one JSON layer (jackson-jr): admin answers, the topology exchange, state files and backup manifests
 * are records, written with their fields in declaration order and read back into the same records. Null fields
 * are left out, so an optional field (racks, a move's target) is absent rather than {@code null}; readers, this
 * release's and 0.1.0's, treat both alike. Reading is strict where it reads other members' answers: one document
 * and nothing after it, nested at most {@link #MAX_DEPTH} deep, and every failure is an
 * {@link IllegalArgumentException} (JsonFuzzTest feeds it mutated documents).
 */
public final class Json {
    /** Deeper documents are refused before they cost a deep recursion. */
    public static final int MAX_DEPTH = 64;

    private static final JSON JR = JSON.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(MAX_DEPTH)
                            .build())
                    .build())
            .enable(JSON.Feature.WRITE_RECORD_FIELDS_IN_DECLARATION_ORDER, JSON.Feature.FAIL_ON_DUPLICATE_MAP_KEYS)
            .build();

    private Json() {}

    /** A record, map, collection, string, number, boolean or null as JSON text. */
    public static String write(Object value) {
        try {
            return JR.asString(value);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    public static byte[] bytes(Object value) {
        return write(value).getBytes(StandardCharsets.UTF_8);
    }

    /** Reads one document into {@code type} (a record, or Map for an object of any shape). */
    public static <T> T read(String text, Class<T> type) {
        try (JsonParser p = JR.createParser(text)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new JsonException("empty document");
            }
            if (type == Map.class && first != JsonToken.START_OBJECT) {
                throw new JsonException("expected a JSON object");
            }
            Object v = type == Object.class ? JR.anyFrom(p) : type == Map.class ? JR.mapFrom(p) : JR.beanFrom(type, p);
            if (p.nextToken() != null) {
                throw new JsonException(
                        "trailing characters at " + p.currentTokenLocation().getCharOffset());
            }
            return type.cast(v);
        } catch (JsonException e) {
            throw new IllegalArgumentException("bad JSON: " + e.getMessage());
        } catch (IOException | RuntimeException e) { // a syntax error, a wrong type, a record's own check
            throw new IllegalArgumentException("bad JSON: " + e.getMessage(), e);
        }
    }

    public static <T> T read(byte[] utf8, Class<T> type) {
        return read(new String(utf8, StandardCharsets.UTF_8), type);
    }

    /** Any document: Map, List, String, Number, Boolean or null. */
    public static Object parse(String text) {
        return read(text, Object.class);
    }

    /** A document that must be an object, of any shape. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        return read(text, Map.class);
    }

    private static final class JsonException extends IOException {
        JsonException(String message) {
            super(message);
        }
    }
}
