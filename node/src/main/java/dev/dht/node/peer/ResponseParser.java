package dev.dht.node.peer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Incremental HTTP/1.1 response parser for the internal protocol: a status line, headers, and a body framed by
 * Content-Length (every answer of a node has one; chunked bodies only come from range requests, which do not use
 * this client). Feed it whatever the socket delivered; it returns each complete response once.
 */
final class ResponseParser {
    /** A response head larger than this is a protocol error, not something to buffer without bound. */
    static final int MAX_HEAD = 16 * 1024;

    private boolean inBody;
    private int status;
    private long clock;
    private long timestamp;
    private long call;
    private String topology;
    private boolean close;
    private byte[] body;
    private int bodyFilled;

    /** The X-Dht-Call number of the last complete response, or -1 if it had none. */
    long callNumber() {
        return call;
    }

    /** Whether the last complete response asked to close the connection. */
    boolean closeRequested() {
        return close;
    }

    /**
     * Consumes bytes from {@code in} (a heap buffer in read mode) and returns the next complete response, or
     * null if more bytes are needed (everything usable was consumed).
     */
    PeerResponse parse(ByteBuffer in) throws IOException {
        if (!inBody) {
            if (!parseHead(in)) {
                return null;
            }
        }
        int want = body.length - bodyFilled;
        int n = Math.min(want, in.remaining());
        in.get(body, bodyFilled, n);
        bodyFilled += n;
        if (bodyFilled < body.length) {
            return null;
        }
        inBody = false;
        return new PeerResponse(status, clock, timestamp, body, topology);
    }

    private boolean parseHead(ByteBuffer in) throws IOException {
        byte[] a = in.array();
        int start = in.arrayOffset() + in.position();
        int limit = in.arrayOffset() + in.limit();
        int end = -1;
        for (int i = start; i + 3 < limit; i++) {
            if (a[i] == '\r' && a[i + 1] == '\n' && a[i + 2] == '\r' && a[i + 3] == '\n') {
                end = i;
                break;
            }
        }
        if (end < 0) {
            if (limit - start >= MAX_HEAD) {
                throw new IOException("response head larger than " + MAX_HEAD + " bytes");
            }
            return false;
        }
        // "HTTP/1.1 200 OK"
        if (end - start < 12 || a[start] != 'H' || a[start + 8] != ' ') {
            throw new IOException("not an HTTP response: " + ascii(a, start, Math.min(end, start + 40)));
        }
        status = (a[start + 9] - '0') * 100 + (a[start + 10] - '0') * 10 + (a[start + 11] - '0');
        long contentLength = -1;
        clock = 0;
        timestamp = 0;
        call = -1;
        topology = null;
        close = false;
        int line = indexOfCrlf(a, start, end) + 2;
        while (line < end) {
            int eol = indexOfCrlf(a, line, end + 2);
            int colon = indexOf(a, line, eol, (byte) ':');
            if (colon > 0) {
                int v = colon + 1;
                while (v < eol && a[v] == ' ') {
                    v++;
                }
                if (nameIs(a, line, colon, "content-length")) {
                    contentLength = number(a, v, eol);
                } else if (nameIs(a, line, colon, "x-dht-clock")) {
                    clock = number(a, v, eol);
                } else if (nameIs(a, line, colon, "x-dht-timestamp")) {
                    timestamp = number(a, v, eol);
                } else if (nameIs(a, line, colon, "x-dht-call")) {
                    call = number(a, v, eol);
                } else if (nameIs(a, line, colon, "x-dht-topology")) {
                    topology = ascii(a, v, eol);
                } else if (nameIs(a, line, colon, "connection")) {
                    close = ascii(a, v, eol).trim().equalsIgnoreCase("close");
                } else if (nameIs(a, line, colon, "transfer-encoding")) {
                    throw new IOException("unexpected chunked response to an internal entity request");
                }
            }
            line = eol + 2;
        }
        if (contentLength < 0 || contentLength > Integer.MAX_VALUE - 16) {
            throw new IOException("response without a usable Content-Length (status " + status + ")");
        }
        in.position(end + 4 - in.arrayOffset());
        body = contentLength == 0 ? EMPTY : new byte[(int) contentLength];
        bodyFilled = 0;
        inBody = true;
        return true;
    }

    private static final byte[] EMPTY = new byte[0];

    private static int indexOfCrlf(byte[] a, int from, int to) {
        for (int i = from; i + 1 < to; i++) {
            if (a[i] == '\r' && a[i + 1] == '\n') {
                return i;
            }
        }
        return to - 2;
    }

    private static int indexOf(byte[] a, int from, int to, byte b) {
        for (int i = from; i < to; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static boolean nameIs(byte[] a, int from, int to, String lowerName) {
        if (to - from != lowerName.length()) {
            return false;
        }
        for (int i = 0; i < lowerName.length(); i++) {
            int c = a[from + i];
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != lowerName.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static long number(byte[] a, int from, int to) throws IOException {
        long n = 0;
        int i = from;
        while (i < to && a[i] == ' ') {
            i++;
        }
        int end = to;
        while (end > i && a[end - 1] == ' ') {
            end--;
        }
        if (i == end) {
            throw new IOException("empty numeric header");
        }
        for (; i < end; i++) {
            int d = a[i] - '0';
            if (d < 0 || d > 9 || n > (Long.MAX_VALUE - d) / 10) {
                throw new IOException("bad numeric header: " + ascii(a, from, to));
            }
            n = n * 10 + d;
        }
        return n;
    }

    private static String ascii(byte[] a, int from, int to) {
        return new String(a, from, Math.max(0, to - from), StandardCharsets.ISO_8859_1);
    }
}
