package dev.dht.node.http;

import java.nio.charset.StandardCharsets;
import one.nio.http.Request;
import one.nio.http.Response;

/** Turns one-nio requests into validated records, or a {@link BadRequestException} that says what is wrong. */
public final class RequestParser {
    private RequestParser() {}

    /** The query string exactly as sent (one-nio's getQueryString() decodes it whole, which breaks "a%26b"). */
    public static String rawQuery(Request request) {
        String uri = request.getURI();
        int q = uri.indexOf('?');
        return q < 0 ? null : uri.substring(q + 1);
    }

    public static EntityRequest entity(Request request, EntityRequest.Op op, ReplicasPolicy policy)
            throws BadRequestException {
        String query = rawQuery(request);
        String id = QueryParams.get(query, "id");
        if (id == null) {
            throw new BadRequestException("missing parameter: id");
        }
        if (id.isEmpty()) {
            throw new BadRequestException("parameter id must not be empty");
        }
        Replicas replicas = policy.parse(QueryParams.get(query, "replicas"));
        byte[] body = null;
        if (op == EntityRequest.Op.PUT) {
            body = request.getBody() == null ? Response.EMPTY : request.getBody();
        }
        boolean internal = isInternal(request);
        long timestamp = 0;
        long clock = 0;
        String topology = null;
        if (internal) {
            clock = Headers.longValue(request, Headers.CLOCK, 0);
            topology = request.getHeader(Headers.TOPOLOGY + ":");
            if (op != EntityRequest.Op.GET) {
                timestamp = Headers.longValue(request, Headers.TIMESTAMP, -1);
                if (timestamp <= 0) {
                    throw new BadRequestException("internal " + op + " needs a positive " + Headers.TIMESTAMP);
                }
            }
        }
        return new EntityRequest(
                op,
                id,
                id.getBytes(StandardCharsets.UTF_8),
                body,
                replicas,
                internal,
                timestamp,
                clock,
                topology == null ? null : topology.trim());
    }

    public static RangeRequest range(Request request) throws BadRequestException {
        String query = rawQuery(request);
        String start = QueryParams.get(query, "start");
        if (start == null) {
            throw new BadRequestException("missing parameter: start");
        }
        if (start.isEmpty()) {
            throw new BadRequestException("parameter start must not be empty");
        }
        String end = QueryParams.get(query, "end");
        if (end != null && end.isEmpty()) {
            throw new BadRequestException("parameter end must not be empty (leave it out to read to the last key)");
        }
        boolean internal = isInternal(request);
        return new RangeRequest(
                start.getBytes(StandardCharsets.UTF_8),
                end == null ? null : end.getBytes(StandardCharsets.UTF_8),
                internal,
                internal ? Headers.longValue(request, Headers.CLOCK, 0) : 0);
    }

    private static boolean isInternal(Request request) {
        return request.getHeader(Headers.INTERNAL + ":") != null;
    }
}
