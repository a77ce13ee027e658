package dev.dht.node.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for what clients hide: exact framing (Content-Length vs chunked, one chunk per
 * record), requests no client library would send, and a client that stops reading.
 */
public final class RawHttp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttp(int port) throws IOException {
        this(java.net.InetAddress.getLoopbackAddress(), port);
    }

    /** Over a socket connected already (e.g. TLS to a member port). */
    public RawHttp(Socket connected) throws IOException {
        socket = connected;
        socket.setSoTimeout(30_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** Connected to the address (this machine's own non-loopback one makes the node see a remote peer). */
    public RawHttp(java.net.InetAddress address, int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(address, port), 5000);
        socket.setSoTimeout(30_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    public Socket socket() {
        return socket;
    }

    public void send(String head) throws IOException {
        send(head.getBytes(StandardCharsets.ISO_8859_1));
    }

    public void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** A parsed response: status, headers (lower-case names), the body and, if chunked, each chunk. */
    public record Reply(int status, Map<String, String> headers, byte[] body, java.util.List<byte[]> chunks) {
        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** Reads a response that has no body whatever its headers say (the answer to HEAD). */
    public Reply readHead() throws IOException {
        return read(false);
    }

    public Reply read() throws IOException {
        return read(true);
    }

    private Reply read(boolean withBody) throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String l = line(); l != null && !l.isEmpty(); l = line()) {
            int colon = l.indexOf(':');
            headers.put(
                    l.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    l.substring(colon + 1).trim());
        }
        java.util.List<byte[]> chunks = new java.util.ArrayList<>();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (!withBody) {
            return new Reply(status, headers, new byte[0], chunks);
        }
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            while (true) {
                int size = Integer.parseInt(line().trim(), 16);
                if (size == 0) {
                    line();
                    break;
                }
                byte[] chunk = in.readNBytes(size);
                if (chunk.length < size) {
                    throw new IOException("truncated chunk");
                }
                chunks.add(chunk);
                body.write(chunk);
                line();
            }
        } else if (headers.containsKey("content-length")) {
            int n = Integer.parseInt(headers.get("content-length"));
            byte[] b = in.readNBytes(n);
            if (b.length < n) {
                throw new IOException("truncated body");
            }
            body.write(b);
        } else {
            throw new IOException("response has neither Content-Length nor chunked encoding: " + headers);
        }
        return new Reply(status, headers, body.toByteArray(), chunks);
    }

    /**
     * Reads whatever is left until the server closes the connection; returns the bytes read. Throws
     * SocketTimeoutException if the connection stays open for longer than the socket timeout.
     */
    public byte[] drainUntilClosed() throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[64 * 1024];
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                all.write(buf, 0, n);
            }
        } catch (java.net.SocketException e) {
            // connection reset: closed with unread data, which is still a close
        }
        return all.toByteArray();
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                byte[] bytes = b.toByteArray();
                int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
