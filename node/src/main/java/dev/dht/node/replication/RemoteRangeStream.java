package dev.dht.node.replication;

import dev.dht.node.api.RangeFrame;
import dev.dht.node.http.QueryParams;
import dev.dht.node.plane.MemberPlane;
import dev.dht.node.release.Release;
import dev.dht.node.storage.Record;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A member's local range, read from an internal {@code GET /v0/entities} (one {@link RangeFrame} per chunk) over
 * its own socket to the member's member port (under its mutual TLS when it has it). Reads happen only as the merge pulls records, i.e. as the client drains the response: a slow
 * client stops the reads, TCP pushes back on the member, and nothing piles up here beyond one 64 KiB buffer.
 * Every read waits at most the request timeout.
 */
final class RemoteRangeStream implements RangeSource {
    private static final int BUFFER = 64 * 1024;

    private final Socket socket;
    private final InputStream in;
    private final String peer;
    private byte[] key;
    private Record record;
    private boolean done;

    private RemoteRangeStream(Socket socket, InputStream in, String peer) {
        this.socket = socket;
        this.in = in;
        this.peer = peer;
    }

    /** Connects, sends the request and reads the answer's head; throws IOException if the member is unusable. */
    static RemoteRangeStream open(MemberPlane plane, String peer, byte[] start, byte[] end, long clock,
                                  int timeoutMillis) throws IOException {
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
            StringBuilder request = new StringBuilder(128).append("GET /v0/entities?start=")
                    .append(QueryParams.encode(new String(start, StandardCharsets.UTF_8)));
            if (end != null) {
                request.append("&end=").append(QueryParams.encode(new String(end, StandardCharsets.UTF_8)));
            }
            request.append(" HTTP/1.1\r\nHost: ").append(uri.getHost()).append(':').append(port)
                    .append("\r\nX-Dht-Internal: 1\r\n").append(Release.MEMBER_HEADER).append(": ")
                    .append(Release.VERSION).append("\r\nX-Dht-Clock: ").append(clock)
                    .append("\r\nConnection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = new BufferedInputStream(socket.getInputStream(), BUFFER);
            String status = line(in);
            boolean chunked = false;
            for (String h = line(in); !h.isEmpty(); h = line(in)) {
                if (h.regionMatches(true, 0, "transfer-encoding:", 0, 18) && h.toLowerCase().contains("chunked")) {
                    chunked = true;
                }
            }
            if (!status.startsWith("HTTP/1.1 200") || !chunked) {
                throw new IOException(peer + " answered the internal range with '" + status + "'");
            }
            return new RemoteRangeStream(socket, in, peer);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    @Override
    public boolean advance() {
        if (done) {
            return false;
        }
        try {
            String sizeLine = line(in);
            int semicolon = sizeLine.indexOf(';');
            int size = Integer.parseInt(semicolon < 0 ? sizeLine.trim() : sizeLine.substring(0, semicolon).trim(), 16);
            if (size == 0) {
                line(in); // the empty line after the last chunk
                done = true;
                close();
                return false;
            }
            byte[] frame = in.readNBytes(size);
            if (frame.length < size) {
                throw new IOException("stream ended inside a chunk");
            }
            if (in.read() != '\r' || in.read() != '\n') {
                throw new IOException("chunk not followed by CRLF");
            }
            key = RangeFrame.key(frame);
            record = RangeFrame.record(frame);
            return true;
        } catch (IOException | RuntimeException e) {
            close();
            throw new UncheckedIOException(new IOException("range stream from " + peer + " failed: " + e.getMessage(),
                    e));
        }
    }

    @Override
    public byte[] key() {
        return key;
    }

    @Override
    public Record record() {
        return record;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
    }

    /** One CRLF-terminated ASCII line without its terminator. */
    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder(32);
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed mid-line");
            }
            if (b == '\n') {
                int n = sb.length();
                return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
            }
            if (sb.length() > 8192) {
                throw new IOException("line too long");
            }
            sb.append((char) b);
        }
    }
}
