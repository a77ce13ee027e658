package dev.dht.node.http;

import dev.dht.node.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import one.nio.http.Request;

/**
 * The small pieces the admin endpoints share (backup, restore, repair, rebuild, forget): JSON bodies in and out,
 * GET/POST handlers.
 */
public final class AdminCalls {
    private AdminCalls() {}

    /** Serves GET with get and POST with post (either may be null: that method is not allowed). */
    public interface Call {
        void handle(Request request, Responder responder) throws BadRequestException;
    }

    /**
     * GET reads a status (open to every client of the client port, as /v0/admin/movement is); POST changes the
     * node's state or costs resources: the admin plane serves it only to a loopback peer or an admin token.
     */
    public static AdminHandler handler(Call get, Call post) {
        return new AdminHandler() {
            @Override
            public boolean privileged(int method) {
                return method != Request.METHOD_GET;
            }

            @Override
            public void handle(Request request, Responder responder) throws BadRequestException {
                (request.getMethod() == Request.METHOD_POST ? post : get).handle(request, responder);
            }

            @Override
            public boolean allows(int method) {
                return method == Request.METHOD_GET && get != null || method == Request.METHOD_POST && post != null;
            }

            @Override
            public String allowed() {
                return get != null && post != null ? "GET, POST" : get != null ? "GET" : "POST";
            }
        };
    }

    /** The request's JSON object body; 400 when it is not one. */
    public static Map<String, Object> body(Request request) throws BadRequestException {
        byte[] body = request.getBody();
        if (body == null || body.length == 0) {
            throw new BadRequestException("a JSON object body is needed");
        }
        try {
            return Json.parseObject(new String(body, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("the body is not a JSON object: " + e.getMessage());
        }
    }

    public static String string(Map<String, Object> body, String name) throws BadRequestException {
        Object v = body.get(name);
        if (!(v instanceof String s) || s.isEmpty()) {
            throw new BadRequestException("\"" + name + "\" must be a non-empty string");
        }
        return s;
    }

    public static long number(Map<String, Object> body, String name, Long dflt) throws BadRequestException {
        Object v = body.get(name);
        if (v == null && dflt != null) {
            return dflt;
        }
        if (!(v instanceof Integer || v instanceof Long)) { // not a fraction, not beyond a long
            throw new BadRequestException("\"" + name + "\" must be a whole number");
        }
        return ((Number) v).longValue();
    }

    @SuppressWarnings("unchecked")
    public static List<String> strings(Map<String, Object> body, String name) throws BadRequestException {
        Object v = body.get(name);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof List<?> l) || !l.stream().allMatch(e -> e instanceof String)) {
            throw new BadRequestException("\"" + name + "\" must be a list of strings");
        }
        return (List<String>) l;
    }

    public static void json(Responder responder, String status, Object value) {
        responder.send(Responses.json(status, Json.write(value)));
    }

    public static void error(Responder responder, String status, String message) {
        json(responder, status, Map.of("error", message));
    }
}
