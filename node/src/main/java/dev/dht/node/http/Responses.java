package dev.dht.node.http;

import java.nio.charset.StandardCharsets;
import one.nio.http.Response;

/**
 * Every response the node builds. Each one carries Content-Length (one-nio's Response(status, body) adds it)
 * or chunked encoding, because the course's one-nio client fails on a response with neither. Error bodies are
 * a short plain-text reason.
 */
public final class Responses {
    public static final String OK = Response.OK;
    public static final String CREATED = Response.CREATED;
    public static final String ACCEPTED = Response.ACCEPTED;
    public static final String BAD_REQUEST = Response.BAD_REQUEST;
    public static final String FORBIDDEN = Response.FORBIDDEN;
    public static final String NOT_FOUND = Response.NOT_FOUND;
    public static final String METHOD_NOT_ALLOWED = Response.METHOD_NOT_ALLOWED;
    public static final String CONFLICT = Response.CONFLICT;
    public static final String PAYLOAD_TOO_LARGE = Response.REQUEST_ENTITY_TOO_LARGE;
    public static final String INTERNAL_ERROR = Response.INTERNAL_ERROR;
    public static final String NOT_IMPLEMENTED = Response.NOT_IMPLEMENTED;
    public static final String SERVICE_UNAVAILABLE = Response.SERVICE_UNAVAILABLE;
    public static final String GATEWAY_TIMEOUT = Response.GATEWAY_TIMEOUT;
    /** A member refused an internal request from an older topology state (docs/cluster.md, "Fencing"). */
    public static final String MISDIRECTED = Headers.MISDIRECTED;

    public static final String JSON = "Content-Type: application/json";

    /** 200 (or another status) with a JSON body. */
    public static Response json(String status, String body) {
        Response r = new Response(status, body.getBytes(StandardCharsets.UTF_8));
        r.addHeader(JSON);
        return r;
    }

    private static final String TEXT = "Content-Type: text/plain; charset=utf-8";

    private Responses() {}

    /** Status with an empty body (Content-Length: 0). */
    public static Response empty(String status) {
        return new Response(status, Response.EMPTY);
    }

    /** Status with a one-line plain-text reason. */
    public static Response text(String status, String message) {
        Response r = new Response(status, (message + "\n").getBytes(StandardCharsets.UTF_8));
        r.addHeader(TEXT);
        return r;
    }

    public static Response methodNotAllowed(String method, String path, String allowed) {
        Response r = text(METHOD_NOT_ALLOWED, method + " is not allowed on " + path + " (allowed: " + allowed + ")");
        r.addHeader("Allow: " + allowed);
        return r;
    }

    /** 200 with bytes [offset, offset+length) of array as the body, without copying them out first. */
    public static Response value(byte[] array, int offset, int length) {
        return new SliceResponse(OK, array, offset, length);
    }

    /** The head of a chunked response; the body follows as chunks. */
    public static Response chunkedHead(String status) {
        Response r = new Response(status);
        r.addHeader("Transfer-Encoding: chunked");
        return r;
    }
}
