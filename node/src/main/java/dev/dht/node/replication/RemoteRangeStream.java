package dev.dht.node.replication;

import dev.dht.node.api.RangeFrame;
import dev.dht.node.http.QueryParams;
import dev.dht.node.peer.ChunkedDecoder;
import dev.dht.node.peer.ResponseHead;
import dev.dht.node.plane.MemberPlane;
import dev.dht.node.release.Release;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A member's local range, read from an internal {@code GET /v0/entities} (one {@link RangeFrame} per chunk) over
 * its own socket to the member's member port (under its mutual TLS when it has it), decoded with the member RPC's
 * codec ({@link ResponseHead}, {@link ChunkedDecoder}). Reads happen only as the merge pulls records, i.e. as the
 * client drains the response: a slow client stops the reads, TCP pushes back on the member, and nothing piles up here beyond one 64 KiB buffer.
 * Every read waits at most the request timeout.
 */
final class RemoteRangeStream extends RangeSource {
    private static final int BUFFER = 64 * 1024;
    /** A range frame is one record: its key and value, well below this. */
    private static final int MAX_FRAME = 64 << 20;

    private final Socket socket;
    private final InputStream in;
    private final String peer;
    /** What was read from the socket and not decoded yet (read mode). */
    private final ByteBuffer buffer;

    private final ChunkedDecoder chunks = new ChunkedDecoder(MAX_FRAME);
    private boolean done;

    private RemoteRangeStream(Socket socket, InputStream in, String peer, ByteBuffer buffer) {
        this.socket = socket;
        this.in = in;
        this.peer = peer;
        this.buffer = buffer;
    }

    /** Connects, sends the request and reads the answer's head; throws IOException if the member is unusable. */
    static RemoteRangeStream open(
            MemberPlane plane, String peer, byte[] start, byte[] end, long clock, int timeoutMillis)
            throws IOException {
        URI uri = URI.create(peer);
        int port = plane.port(uri.getPort() < 0 ? 80 : uri.getPort());
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(timeoutMillis);
            socket.connect(new InetSocketAddress(uri.getHost(), port), timeoutMillis);
            if (plane.tls() != null) {
                socket = plane.tls().wrap(socket, uri.getHost(), port); // handshake done, or IOException
            }
            StringBuilder request = new StringBuilder(128)
                    .append("GET /v0/entities?start=")
                    .append(QueryParams.encode(new String(start, StandardCharsets.UTF_8)));
            if (end != null) {
                request.append("&end=").append(QueryParams.encode(new String(end, StandardCharsets.UTF_8)));
            }
            request.append(" HTTP/1.1\r\nHost: ")
                    .append(uri.getHost())
                    .append(':')
                    .append(port)
                    .append("\r\nX-Dht-Internal: 1\r\n")
                    .append(Release.MEMBER_HEADER)
                    .append(": ")
                    .append(Release.VERSION)
                    .append("\r\nX-Dht-Clock: ")
                    .append(clock)
                    .append("\r\nConnection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteBuffer buffer = ByteBuffer.allocate(BUFFER).flip();
            ResponseHead head = new ResponseHead();
            while (!head.parse(buffer)) {
                fill(in, buffer);
            }
            if (head.status() != 200 || !head.chunked()) {
                throw new IOException(peer + " answered the internal range with status " + head.status()
                        + (head.chunked() ? "" : ", not chunked"));
            }
            return new RemoteRangeStream(socket, in, peer, buffer);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    @Override
    boolean advance() {
        if (done) {
            return false;
        }
        try {
            byte[] frame = chunks.next(buffer);
            while (frame == null && !chunks.finished()) {
                fill(in, buffer);
                frame = chunks.next(buffer);
            }
            if (frame == null) { // the last chunk
                done = true;
                close();
                return false;
            }
            return at(RangeFrame.key(frame), RangeFrame.record(frame));
        } catch (IOException | RuntimeException e) {
            close();
            throw new UncheckedIOException(
                    new IOException("range stream from " + peer + " failed: " + e.getMessage(), e));
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
    }

    /** Reads what the socket has into {@code buffer} (read mode, kept so), after what is left in it. */
    private static void fill(InputStream in, ByteBuffer buffer) throws IOException {
        buffer.compact();
        try {
            if (!buffer.hasRemaining()) { // cannot happen: the codec consumes what it can before asking for more
                throw new IOException("answer does not fit the read buffer");
            }
            int n = in.read(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            if (n < 0) {
                throw new IOException("connection closed mid-answer");
            }
            buffer.position(buffer.position() + n);
        } finally {
            buffer.flip();
        }
    }
}
