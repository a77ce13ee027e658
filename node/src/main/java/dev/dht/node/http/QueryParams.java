package dev.dht.node.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/** Reads parameters from a raw query string ("a=1&b=%2F"), decoding percent escapes only when present. */
public final class QueryParams {
    private QueryParams() {}

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

    /**
     * Percent-encodes a parameter value (UTF-8; everything but RFC 3986 unreserved characters), the inverse of
     * {@link #get}. Ids made of letters and digits, the common case, come back as they are.
     */
    public static String encode(String value) {
        int n = value.length();
        int i = 0;
        while (i < n && unreserved(value.charAt(i))) {
            i++;
        }
        if (i == n) {
            return value;
        }
        StringBuilder sb = new StringBuilder(n + 16).append(value, 0, i);
        byte[] utf8 = value.substring(i).getBytes(StandardCharsets.UTF_8);
        for (byte b : utf8) {
            char c = (char) (b & 0xFF);
            if (c < 0x80 && unreserved(c)) {
                sb.append(c);
            } else {
                sb.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
            }
        }
        return sb.toString();
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private static boolean unreserved(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || c == '-'
                || c == '.'
                || c == '_'
                || c == '~';
    }
}
