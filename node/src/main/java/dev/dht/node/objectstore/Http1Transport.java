package dev.dht.node.objectstore;

import dev.dht.node.natives.BackgroundPriority;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/1.1 to the object store over blocking sockets (TLS for an https endpoint, its host name verified), with
 * kept-alive connections pooled: the transport of {@link S3Client}. The calling thread does the I/O and a body is
 * one copy loop. Why not the JDK's HttpClient: its asynchronous machinery (a selector thread, futures, reactive
 * body publishers) made the JIT compile about 500 methods per node the first time a backup ran, on compiler threads
 * of normal priority beside the live load, where the backup's own threads run under SCHED_IDLE
 * (docs/operations.md, "Measured cost").
 */
final class Http1Transport {
    /** Kept-alive connections kept idle at most (a backup uploads one file at a time). */
    private static final int MAX_IDLE = 4;
    /** An idle connection older than this is closed, not reused: servers drop idle ones (S3 after about 20 s). */
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** A response's status line and headers, at most. */
    static final int MAX_HEAD = 64 << 10;
    /** Closes the socket of an exchange that overran its timeout (a blocking write has no timeout of its own). */
    private static final ScheduledExecutorService DEADLINES =
            Executors.newSingleThreadScheduledExecutor(BackgroundPriority.threadFactory("dht-s3-deadline", false));

    private final String host;
    private final int port;
    private final boolean tls;
    private final SSLSocketFactory tlsSockets;
    private final int connectTimeoutMillis;
    private final ArrayDeque<Connection> idle = new ArrayDeque<>();

    /** @param host the host to connect to (a virtual-hosted bucket's name included), its TLS certificate's name */
    Http1Transport(URI endpoint, String host, Duration connectTimeout) {
        this(endpoint, host, connectTimeout, null);
    }

    /** @param tlsSockets for an https endpoint: the JDK's default (its trusted CAs) when null */
    Http1Transport(URI endpoint, String host, Duration connectTimeout, SSLSocketFactory tlsSockets) {
        this.tlsSockets = tlsSockets;
        this.tls = "https".equalsIgnoreCase(endpoint.getScheme());
        if (!tls && !"http".equalsIgnoreCase(endpoint.getScheme())) {
            throw new IllegalArgumentException("the object store endpoint must be http:// or https://: " + endpoint);
        }
        this.host = host;
        this.port = endpoint.getPort() != -1 ? endpoint.getPort() : tls ? 443 : 80;
        this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
    }

    /** A request's body: opened afresh for each attempt, exactly its length of bytes. */
    interface Body {
        long length();

        InputStream open() throws IOException;
    }

    /**
     * An answer: its status, its Content-Length (-1: none, or not a number), its headers (names in lower case) and its
     * body. Read the body to its end (the connection is then kept for the next call) or close it.
     */
    record Response(int status, long contentLength, Map<String, String> headers, InputStream body) {
    }

    /**
     * Sends one request and reads the answer's head. timeout bounds the whole send and the wait for the head; each
     * read of the body then waits at most timeout for bytes. A kept-alive connection the server closed meanwhile
     * is replaced by a new one at once (every call here is idempotent).
     */
    Response exchange(String method, String target, String hostHeader, Map<String, String> headers, Body body,
                      Duration timeout) throws IOException {
        for (;;) {
            Connection c = take();
            boolean reused = c != null;
            if (c == null) {
                c = connect();
            }
            try {
                return c.exchange(method, target, hostHeader, headers, body, timeout);
            } catch (IOException e) {
                c.close();
                if (reused && !c.heard) {
                    dropIdle(); // the server closed kept-alive connections: the others are likely gone too
                    continue;
                }
                throw e;
            }
        }
    }

    private Connection connect() throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), connectTimeoutMillis);
            if (tls) {
                SSLSocketFactory factory = tlsSockets != null ? tlsSockets
                        : (SSLSocketFactory) SSLSocketFactory.getDefault();
                SSLSocket ssl = (SSLSocket) factory.createSocket(s, host, port, true);
                SSLParameters p = ssl.getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host
                ssl.setSSLParameters(p);
                ssl.setSoTimeout(connectTimeoutMillis);
                ssl.startHandshake();
                s = ssl;
            }
            return new Connection(s);
        } catch (IOException | RuntimeException e) {
            try {
                s.close();
            } catch (IOException ignored) {
                // failing anyway
            }
            throw e;
        }
    }

    private synchronized Connection take() {
        Connection c;
        while ((c = idle.pollLast()) != null) {
            if (System.nanoTime() - c.idleSince < IDLE_NANOS) {
                return c;
            }
            c.close();
        }
        return null;
    }

    private synchronized void release(Connection c) {
        if (idle.size() < MAX_IDLE) {
            c.idleSince = System.nanoTime();
            idle.addLast(c);
        } else {
            c.close();
        }
    }

    private synchronized void dropIdle() {
        Connection c;
        while ((c = idle.pollFirst()) != null) {
            c.close();
        }
    }

    /** What a response body needs of its connection. */
    interface Wire {
        InputStream in();

        /** One CRLF-ended line, without its end, within budget[0] bytes (which it lowers). */
        String line(int[] budget) throws IOException;

        /** The body was read to its end: the connection may carry the next exchange if reusable. */
        void done(boolean reusable);

        void close();
    }

    /** One socket, one exchange at a time. */
    private final class Connection implements Wire {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private long idleSince;
        /** Bytes of an answer arrived on this exchange (a failure after that is not a stale connection). */
        private boolean heard;
        private volatile boolean timedOut;

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new BufferedInputStream(socket.getInputStream(), 16 << 10);
            this.out = new BufferedOutputStream(socket.getOutputStream(), 16 << 10);
        }

        Response exchange(String method, String target, String hostHeader, Map<String, String> headers, Body body,
                          Duration timeout) throws IOException {
            heard = false;
            timedOut = false;
            long millis = Math.max(1, timeout.toMillis());
            ScheduledFuture<?> deadline = DEADLINES.schedule(() -> {
                timedOut = true;
                close();
            }, millis, TimeUnit.MILLISECONDS);
            try {
                socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, millis));
                writeHead(method, target, hostHeader, headers, body.length());
                if (body.length() > 0) {
                    try (InputStream src = body.open()) {
                        copy(src, body.length());
                    }
                }
                out.flush();
                return readHead(method);
            } catch (IOException e) {
                if (timedOut) {
                    SocketTimeoutException t = new SocketTimeoutException(method + " " + target
                            + ": no answer within " + timeout.toSeconds() + " s");
                    t.initCause(e);
                    throw t;
                }
                throw e;
            } finally {
                deadline.cancel(false);
            }
        }

        private void writeHead(String method, String target, String hostHeader, Map<String, String> headers,
                               long length) throws IOException {
            StringBuilder b = new StringBuilder(512);
            b.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
            b.append("Host: ").append(hostHeader).append("\r\n");
            headers.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
            if (length > 0 || "PUT".equals(method) || "POST".equals(method)) {
                b.append("Content-Length: ").append(length).append("\r\n");
            }
            b.append("\r\n");
            out.write(b.toString().getBytes(StandardCharsets.ISO_8859_1));
        }

        private void copy(InputStream src, long length) throws IOException {
            byte[] buf = new byte[64 << 10];
            long left = length;
            while (left > 0) {
                int n = src.read(buf, 0, (int) Math.min(buf.length, left));
                if (n < 0) {
                    throw new IOException("the body ended " + left + " bytes before its length of " + length);
                }
                out.write(buf, 0, n);
                left -= n;
            }
        }

        private Response readHead(String method) throws IOException {
            int[] budget = {MAX_HEAD};
            for (;;) {
                String status = line(budget);
                heard = true;
                if (!status.startsWith("HTTP/1.") || status.length() < 12 || status.charAt(8) != ' ') {
                    throw new IOException("not an HTTP/1.x answer: " + truncate(status));
                }
                int code;
                try {
                    code = Integer.parseInt(status.substring(9, 12));
                } catch (NumberFormatException e) {
                    throw new IOException("not an HTTP status: " + truncate(status));
                }
                Map<String, String> h = new LinkedHashMap<>();
                for (String l = line(budget); !l.isEmpty(); l = line(budget)) {
                    int colon = l.indexOf(':');
                    if (colon <= 0) {
                        throw new IOException("malformed header line: " + truncate(l));
                    }
                    h.merge(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim(),
                            (a, x) -> a + "," + x);
                }
                if (code >= 100 && code < 200) {
                    continue; // 100 Continue and the like: the answer follows
                }
                boolean keep = !status.startsWith("HTTP/1.0")
                        && !h.getOrDefault("connection", "").toLowerCase(Locale.ROOT).contains("close");
                Long length = number(h.get("content-length")); // parsed once: the body and the answer use it
                InputStream body;
                if ("HEAD".equals(method) || code == 204 || code == 304) {
                    body = new ResponseBody(this, 0, false, keep);
                } else if (h.getOrDefault("transfer-encoding", "").toLowerCase(Locale.ROOT).contains("chunked")) {
                    body = new ResponseBody(this, -1, true, keep);
                } else if (h.containsKey("content-length")) {
                    if (length == null) {
                        throw new IOException("bad Content-Length: " + truncate(h.get("content-length")));
                    }
                    body = new ResponseBody(this, length, false, keep);
                } else {
                    body = new ResponseBody(this, -1, false, false); // until the server closes
                }
                return new Response(code, length == null ? -1 : length, h, body);
            }
        }

        @Override
        public InputStream in() {
            return in;
        }

        @Override
        public String line(int[] budget) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream(64);
            for (;;) {
                int c = in.read();
                if (c < 0) {
                    throw new IOException("the object store closed the connection"
                            + (b.size() == 0 ? "" : " in the middle of a line"));
                }
                if (--budget[0] < 0) {
                    throw new IOException("an answer's head longer than " + MAX_HEAD + " bytes");
                }
                if (c == '\n') {
                    byte[] a = b.toByteArray();
                    int n = a.length > 0 && a[a.length - 1] == '\r' ? a.length - 1 : a.length;
                    return new String(a, 0, n, StandardCharsets.ISO_8859_1);
                }
                b.write(c);
            }
        }

        @Override
        public void done(boolean keep) {
            if (keep) {
                release(this);
            } else {
                close();
            }
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // nothing to do
            }
        }
    }

    /** A header's number, or null when it is absent or not one. */
    private static Long number(String value) {
        try {
            return value == null ? null : Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static String truncate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
