package dev.dht.node.topology;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the node speaks on its admin endpoints (topology, movement) and in its state file: objects,
 * arrays, strings, whole numbers, booleans and null. Not a general library: numbers are longs, and what it does
 * not expect it rejects with {@link IllegalArgumentException}, and nothing else: it reads what other members
 * answer, so it is strict (RFC 8259 whitespace, ASCII digits, four hex digits per escape) and bounded (nesting at
 * most {@link #MAX_DEPTH} deep, no recursion beyond it). JsonFuzzTest feeds it mutated documents.
 */
public final class Json {
    /** Deeper documents are refused: the parser recurses once per level. */
    public static final int MAX_DEPTH = 64;

    private Json() {
    }

    // ---- writing -----------------------------------------------------------------------------------------------

    /** Serialises maps (keys in their iteration order), collections, strings, numbers, booleans and null. */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            string(sb, s);
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                string(sb, String.valueOf(e.getKey()));
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof Collection<?> c) {
            sb.append('[');
            boolean first = true;
            for (Object o : c) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                write(sb, o);
            }
            sb.append(']');
        } else {
            throw new IllegalArgumentException("cannot write " + v.getClass().getSimpleName() + " as JSON");
        }
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    // ---- reading -----------------------------------------------------------------------------------------------

    /** Parses a document: Map, List, String, Long, Boolean or null. */
    public static Object parse(String text) {
        Parser p = new Parser(text);
        Object v = p.value();
        p.blanks();
        if (p.i != text.length()) {
            throw p.error("trailing characters");
        }
        return v;
    }

    /** Parses a document that must be an object. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        Object v = parse(text);
        if (!(v instanceof Map)) {
            throw new IllegalArgumentException("expected a JSON object");
        }
        return (Map<String, Object>) v;
    }

    private static final class Parser {
        private final String s;
        private int i;
        private int depth;

        Parser(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("bad JSON at " + i + ": " + what);
        }

        void blanks() {
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                    return;
                }
                i++;
            }
        }

        void enter() {
            if (++depth > MAX_DEPTH) {
                throw error("nested deeper than " + MAX_DEPTH);
            }
        }

        Object value() {
            blanks();
            if (i >= s.length()) {
                throw error("unexpected end");
            }
            char c = s.charAt(i);
            return switch (c) {
                case '{' -> object();
                case '[' -> array();
                case '"' -> string();
                case 't' -> literal("true", Boolean.TRUE);
                case 'f' -> literal("false", Boolean.FALSE);
                case 'n' -> literal("null", null);
                default -> number();
            };
        }

        Object literal(String word, Object v) {
            if (!s.startsWith(word, i)) {
                throw error("expected " + word);
            }
            i += word.length();
            return v;
        }

        Long number() {
            int start = i;
            if (i < s.length() && s.charAt(i) == '-') {
                i++;
            }
            while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                i++;
            }
            if (i == start || (i == start + 1 && s.charAt(start) == '-')) {
                throw error("expected a value");
            }
            if (i < s.length() && (s.charAt(i) == '.' || s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
                throw error("only whole numbers are expected");
            }
            try {
                return Long.parseLong(s.substring(start, i));
            } catch (NumberFormatException e) {
                throw error("number out of range");
            }
        }

        String string() {
            i++; // opening quote
            StringBuilder sb = new StringBuilder();
            while (true) {
                if (i >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(i++);
                if (c == '"') {
                    return sb.toString();
                }
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    throw error("unterminated escape");
                }
                char e = s.charAt(i++);
                switch (e) {
                    case '"', '\\', '/' -> sb.append(e);
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw error("short \\u escape");
                        }
                        int code = 0;
                        for (int k = 0; k < 4; k++) {
                            int digit = hex(s.charAt(i + k));
                            if (digit < 0) {
                                throw error("bad \\u escape");
                            }
                            code = code * 16 + digit;
                        }
                        sb.append((char) code);
                        i += 4;
                    }
                    default -> throw error("unknown escape \\" + e);
                }
            }
        }

        private static int hex(char c) {
            if (c >= '0' && c <= '9') {
                return c - '0';
            }
            if (c >= 'a' && c <= 'f') {
                return c - 'a' + 10;
            }
            if (c >= 'A' && c <= 'F') {
                return c - 'A' + 10;
            }
            return -1;
        }

        List<Object> array() {
            i++;
            enter();
            List<Object> out = new ArrayList<>();
            blanks();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                depth--;
                return out;
            }
            while (true) {
                out.add(value());
                blanks();
                if (i >= s.length()) {
                    throw error("unterminated array");
                }
                char c = s.charAt(i++);
                if (c == ']') {
                    depth--;
                    return out;
                }
                if (c != ',') {
                    throw error("expected , or ]");
                }
            }
        }

        Map<String, Object> object() {
            i++;
            enter();
            Map<String, Object> out = new LinkedHashMap<>();
            blanks();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                depth--;
                return out;
            }
            while (true) {
                blanks();
                if (i >= s.length() || s.charAt(i) != '"') {
                    throw error("expected a key");
                }
                String key = string();
                blanks();
                if (i >= s.length() || s.charAt(i++) != ':') {
                    throw error("expected :");
                }
                out.put(key, value());
                blanks();
                if (i >= s.length()) {
                    throw error("unterminated object");
                }
                char c = s.charAt(i++);
                if (c == '}') {
                    depth--;
                    return out;
                }
                if (c != ',') {
                    throw error("expected , or }");
                }
            }
        }
    }
}
