package dev.dht.operator.nodeadmin;

import java.util.List;
import java.util.Map;

/**
 * A member's answer to an admin call about backups or restores: the HTTP status and the JSON object (0 and a
 * problem when no usable answer came: refused, timed out, not JSON).
 */
public record AdminAnswer(int status, Map<String, Object> json, String problem) {
    public AdminAnswer {
        json = json == null ? Map.of() : json;
    }

    public static AdminAnswer failed(String problem) {
        return new AdminAnswer(0, Map.of(), problem);
    }

    public boolean answered() {
        return status > 0;
    }

    public String string(String field) {
        Object v = json.get(field);
        return v == null ? null : v.toString();
    }

    public long number(String field) {
        return json.get(field) instanceof Number n ? n.longValue() : 0;
    }

    /** {@code json[object][field]} as a number, 0 when absent. */
    public long number(String object, String field) {
        return json.get(object) instanceof Map<?, ?> m && m.get(field) instanceof Number n ? n.longValue() : 0;
    }

    @SuppressWarnings("unchecked")
    public List<String> strings(String field) {
        return json.get(field) instanceof List<?> l ? (List<String>) l : List.of();
    }

    /** The member's reason for a refusal, or the problem. */
    public String reason() {
        if (!answered()) {
            return problem;
        }
        Object error = json.get("error");
        return error != null ? error.toString() : "HTTP " + status;
    }
}
