package dev.dht.node.peer;

import dev.dht.node.release.Release;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Encodes member-protocol requests for one connection: the head into a heap array (cheap single-byte stores), then
 * one bulk copy with the body into the connection's socket buffer; no intermediate strings. Not thread-safe: the
 * connection calls it under its lock.
 */
final class RequestEncoder {
    private static final byte[] HTTP_HOST = bytes(" HTTP/1.1\r\nHost: ");
    /** Every member request names the sender's release: a cluster at a raised feature level refuses older ones. */
    private static final byte[] CALL =
            bytes("\r\nX-Dht-Internal: 1\r\n" + Release.MEMBER_HEADER + ": " + Release.VERSION + "\r\nX-Dht-Call: ");

    private static final byte[] CLOCK = bytes("\r\nX-Dht-Clock: ");
    private static final byte[] TIMESTAMP = bytes("\r\nX-Dht-Timestamp: ");
    private static final byte[] TOPOLOGY = bytes("\r\nX-Dht-Topology: ");
    private static final byte[] LENGTH = bytes("\r\nContent-Length: ");
    private static final byte[] END = bytes("\r\n\r\n");

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private final String hostHeader;
    /** The request head being encoded. */
    private byte[] head = new byte[512];

    private int headLength;

    RequestEncoder(String hostHeader) {
        this.hostHeader = hostHeader;
    }

    /**
     * Appends the request (call number {@code number}) to {@code out} (write mode), growing it if needed: returns
     * the buffer that holds it, {@code out} or a bigger copy.
     */
    ByteBuffer encode(PeerRequest r, long number, ByteBuffer out) {
        byte[] body = r.body();
        String topology = r.topology();
        headLength = 0;
        reserve(256
                + r.method().length()
                + r.target().length()
                + hostHeader.length()
                + (topology == null ? 0 : topology.length()));
        ascii(r.method());
        head[headLength++] = ' ';
        ascii(r.target());
        put(HTTP_HOST);
        ascii(hostHeader);
        put(CALL);
        number(number);
        put(CLOCK);
        number(r.clock());
        if (r.timestamp() != 0) {
            put(TIMESTAMP);
            number(r.timestamp());
        }
        if (topology != null) {
            put(TOPOLOGY);
            ascii(topology);
        }
        if (body != null) {
            put(LENGTH);
            number(body.length);
        }
        put(END);
        out = ensure(out, headLength + (body == null ? 0 : body.length));
        out.put(head, 0, headLength);
        if (body != null) {
            out.put(body);
        }
        return out;
    }

    /** Room for {@code bytes} more in head (every encode reserves its worst case up front). */
    private void reserve(int bytes) {
        if (head.length < bytes) {
            head = new byte[Math.max(head.length * 2, bytes)];
        }
    }

    private static ByteBuffer ensure(ByteBuffer out, int bytes) {
        if (out.remaining() >= bytes) {
            return out;
        }
        int capacity = Math.max(out.capacity() * 2, out.position() + bytes);
        ByteBuffer bigger = out.isDirect() ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity);
        out.flip();
        bigger.put(out);
        return bigger;
    }

    private void put(byte[] constant) {
        System.arraycopy(constant, 0, head, headLength, constant.length);
        headLength += constant.length;
    }

    /** Targets, host names and topology headers are ASCII (the target is percent-encoded). */
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): the low byte of each char, no copy
    private void ascii(String s) {
        s.getBytes(0, s.length(), head, headLength);
        headLength += s.length();
    }

    private void number(long v) {
        if (v < 0) {
            head[headLength++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        int end = headLength + digits;
        for (int i = end - 1; i >= headLength; i--) {
            head[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        headLength = end;
    }
}
