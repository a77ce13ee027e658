package dev.dht.node.peer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The member RPC's HTTP/1.1 response head, parsed incrementally from a heap buffer: the status line, then the
 * headers a member answer carries (Content-Length or chunked Transfer-Encoding, X-Dht-Clock, X-Dht-Timestamp,
 * X-Dht-Call, X-Dht-Topology, Connection). Both clients of the member port use it: the asynchronous
 * {@link PeerClient} (entity calls, Content-Length bodies) and the blocking range reader (a chunked body, one
 * range frame per chunk, through {@link ChunkedDecoder}). Reused from one response to the next: no allocation
 * but the topology header's string.
 */
public final class ResponseHead {
    /** A response head larger than this is a protocol error, not something to buffer without bound. */
    public static final int MAX_HEAD = 16 * 1024;

    private int status;
    private long contentLength;
    private boolean chunked;
    private long clock;
    private long timestamp;
    private long call;
    private String topology;
    private boolean close;

    /**
     * Consumes a complete head from {@code in} (a heap buffer in read mode) and returns true, or returns false and
     * consumes nothing when the head is not complete yet; IOException when it is not an HTTP/1.1 answer.
     */
    public boolean parse(ByteBuffer in) throws IOException {
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
        status = digit(a, start + 9) * 100 + digit(a, start + 10) * 10 + digit(a, start + 11);
        contentLength = -1;
        chunked = false;
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
                    chunked = ascii(a, v, eol).toLowerCase().contains("chunked");
                }
            }
            line = eol + 2;
        }
        in.position(end + 4 - in.arrayOffset());
        return true;
    }

    public int status() {
        return status;
    }

    /** The Content-Length, or -1 when the answer has none (a chunked one). */
    public long contentLength() {
        return contentLength;
    }

    public boolean chunked() {
        return chunked;
    }

    /** X-Dht-Clock, or 0. */
    public long clock() {
        return clock;
    }

    /** X-Dht-Timestamp, or 0. */
    public long timestamp() {
        return timestamp;
    }

    /** X-Dht-Call, or -1. */
    public long call() {
        return call;
    }

    /** X-Dht-Topology as text (the topology package reads it), or null. */
    public String topology() {
        return topology;
    }

    /** Whether the answer asked to close the connection. */
    public boolean close() {
        return close;
    }

    private static int digit(byte[] a, int i) throws IOException {
        int d = a[i] - '0';
        if (d < 0 || d > 9) {
            throw new IOException("bad status line: " + ascii(a, i - 9, i + 3));
        }
        return d;
    }

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

    static String ascii(byte[] a, int from, int to) {
        return new String(a, from, Math.max(0, to - from), StandardCharsets.ISO_8859_1);
    }
}
