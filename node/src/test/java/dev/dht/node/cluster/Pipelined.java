package dev.dht.node.cluster;

import dev.dht.node.release.Release;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Many entity requests on one kept-alive connection, pipelined: a batch is written at once and its answers read in
 * order (the node answers pipelined requests in order). Lets a test write and read back a few hundred thousand keys
 * in seconds on this 2-core machine, where one request at a time through a JDK client would take minutes.
 */
final class Pipelined implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /** One request: GET, PUT (value) or DELETE of id, with an optional {@code replicas=ack/from}. */
    record Op(String method, String id, byte[] value, String replicas) {
        static Op get(String id) {
            return new Op("GET", id, null, null);
        }

        static Op put(String id, byte[] value, String replicas) {
            return new Op("PUT", id, value, replicas);
        }

        static Op delete(String id, String replicas) {
            return new Op("DELETE", id, null, replicas);
        }
    }

    /** One answer: the status (0 when the connection failed before it came) and the body. */
    record Answer(int status, byte[] body) {}

    Pipelined(int port) throws IOException {
        this(plain(port));
    }

    /** Over a connected socket: a member port's, from MemberTlsMode.connect (TLS when the run asks for it). */
    Pipelined(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(30_000);
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream(), 64 << 10);
        out = new BufferedOutputStream(socket.getOutputStream(), 64 << 10);
    }

    private static Socket plain(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        return s;
    }

    /** Sends the batch, then reads its answers in order. */
    List<Answer> send(List<Op> ops) throws IOException {
        for (Op op : ops) {
            String target = "/v0/entity?id=" + op.id() + (op.replicas() == null ? "" : "&replicas=" + op.replicas());
            StringBuilder head = new StringBuilder()
                    .append(op.method())
                    .append(' ')
                    .append(target)
                    .append(" HTTP/1.1\r\nHost: localhost\r\n");
            if (op.value() != null) {
                head.append("Content-Length: ").append(op.value().length).append("\r\n");
            }
            head.append("\r\n");
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            if (op.value() != null) {
                out.write(op.value());
            }
        }
        out.flush();
        List<Answer> answers = new ArrayList<>(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            answers.add(read(!ops.get(i).method().equals("HEAD")));
        }
        return answers;
    }

    /**
     * {@code GET target} answered chunked (a range): every chunk, in order. With {@code internal} the request carries
     * {@code X-Dht-Internal: 1} and this release (as a member of it asks): a member's own records, tombstones and
     * timestamps included.
     */
    List<byte[]> chunks(String target, boolean internal) throws IOException {
        String member = "X-Dht-Internal: 1\r\n" + Release.MEMBER_HEADER + ": " + Release.VERSION + "\r\n";
        out.write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\n" + (internal ? member : "") + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        String status = line();
        if (status == null || !status.contains(" 200 ")) {
            throw new IOException("range answered " + status);
        }
        for (String l = line(); l != null && !l.isEmpty(); l = line()) {
            // headers: chunked is what a range answers
        }
        List<byte[]> chunks = new ArrayList<>();
        while (true) {
            int size = Integer.parseInt(line().trim(), 16);
            if (size == 0) {
                line();
                return chunks;
            }
            byte[] chunk = in.readNBytes(size);
            if (chunk.length < size) {
                throw new IOException("truncated chunk");
            }
            chunks.add(chunk);
            line();
        }
    }

    private Answer read(boolean body) throws IOException {
        String status = line();
        if (status == null) {
            throw new IOException("connection closed before an answer");
        }
        int code = Integer.parseInt(status.split(" ")[1]);
        int length = -1;
        for (String l = line(); l != null && !l.isEmpty(); l = line()) {
            int colon = l.indexOf(':');
            if (l.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
                length = Integer.parseInt(l.substring(colon + 1).trim());
            }
        }
        if (!body || length <= 0) {
            return new Answer(code, new byte[0]);
        }
        byte[] b = in.readNBytes(length);
        if (b.length < length) {
            throw new IOException("truncated body");
        }
        return new Answer(code, b);
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                int n = b.size();
                byte[] bytes = b.toByteArray();
                return new String(bytes, 0, n > 0 && bytes[n - 1] == '\r' ? n - 1 : n, StandardCharsets.ISO_8859_1);
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
