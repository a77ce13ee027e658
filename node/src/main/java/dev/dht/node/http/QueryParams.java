package dev.dht.node.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/** Reads parameters from a raw query string ("a=1&b=%2F"), decoding percent escapes only when present. */
public final class QueryParams {
    private QueryParams() {
    }

    /** The first value of name, decoded; "" for "name=" or a bare "name"; null when absent. */
    public static String get(String query, String name) throws BadRequestException {
        if (query == null || query.isEmpty()) {
            return null;
        }
        int n = name.length();
        int start = 0;
        while (start <= query.length()) {
            int end = query.indexOf('&', start);
            if (end < 0) {
                end = query.length();
            }
            if (end - start >= n && query.startsWith(name, start)) {
                if (end - start == n) {
                    return "";
                }
                if (query.charAt(start + n) == '=') {
                    return decode(query.substring(start + n + 1, end), name);
                }
            }
            start = end + 1;
        }
        return null;
    }

    private static String decode(String raw, String name) throws BadRequestException {
        if (raw.indexOf('%') < 0 && raw.indexOf('+') < 0) {
            return raw;
        }
        try {
            return URLDecoder.decode(raw, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("parameter " + name + " is not properly percent-encoded");
        }
    }
}
