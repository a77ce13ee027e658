package dev.dht.bench.scale;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Cheap stand-ins for a node's peers on loopback: one selector thread listening on many member ports, answering
 * the member protocol's requests at once (PUT/DELETE stored, any GET "empty and serving", as a new member answers a
 * rebuild's question), echoing each request's {@code X-Dht-Call} as the peer client requires. It counts, per
 * port, the connections open now and the requests answered: the measured node's connections to its peers are
 * counted at this end, exactly. Loopback only; bounded by the ports it is given.
 */
final class FakePeers implements AutoCloseable {
    private static final byte[] GET_BODY = "{\"empty\":true,\"serving\":true}".getBytes(StandardCharsets.US_ASCII);

    /** One member port's counts. */
    static final class Port {
        final AtomicInteger open = new AtomicInteger();
        final AtomicInteger requests = new AtomicInteger();
    }

    private final Selector selector;
    private final Map<Integer, Port> ports = new ConcurrentHashMap<>();
    private final List<Runnable> pending = new ArrayList<>();
    private final Thread thread;
    private volatile boolean closed;

    FakePeers() throws IOException {
        selector = Selector.open();
        thread = new Thread(this::loop, "fake-peers");
        thread.setDaemon(true);
        thread.start();
    }

    /** Listens on a free loopback port (0) or the given one; returns the port. */
    int listen(int port) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        server.bind(new InetSocketAddress("127.0.0.1", port), 1024);
        server.configureBlocking(false);
        int bound = server.socket().getLocalPort();
        Port counts = ports.computeIfAbsent(bound, p -> new Port());
        synchronized (pending) {
            pending.add(() -> register(server, SelectionKey.OP_ACCEPT, counts));
        }
        selector.wakeup();
        return bound;
    }

    Port port(int port) {
        return ports.get(port);
    }

    Map<Integer, Port> ports() {
        return ports;
    }

    private void register(java.nio.channels.SelectableChannel c, int ops, Object attachment) {
        try {
            c.register(selector, ops, attachment);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One accepted connection: what it has read and not yet answered. */
    private static final class Conn {
        final Port port;
        ByteBuffer in = ByteBuffer.allocate(16 * 1024);
        ByteBuffer out = ByteBuffer.allocate(0);

        Conn(Port port) {
            this.port = port;
        }
    }

    private void loop() {
        try {
            while (!closed) {
                selector.select(100);
                synchronized (pending) {
                    pending.forEach(Runnable::run);
                    pending.clear();
                }
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    try {
                        if (!k.isValid()) {
                            continue;
                        }
                        if (k.isAcceptable()) {
                            SocketChannel c = ((ServerSocketChannel) k.channel()).accept();
                            if (c != null) {
                                Port p = (Port) k.attachment();
                                c.configureBlocking(false);
                                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                                c.register(selector, SelectionKey.OP_READ, new Conn(p));
                                p.open.incrementAndGet();
                            }
                        } else {
                            serve(k);
                        }
                    } catch (IOException e) {
                        drop(k);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                System.err.println("[fake-peers] stopped: " + e);
            }
        }
    }

    private void serve(SelectionKey k) throws IOException {
        SocketChannel c = (SocketChannel) k.channel();
        Conn conn = (Conn) k.attachment();
        if (k.isReadable()) {
            if (!conn.in.hasRemaining()) {
                conn.in = ByteBuffer.allocate(conn.in.capacity() * 2).put(conn.in.flip());
            }
            if (c.read(conn.in) < 0) {
                drop(k);
                return;
            }
            answerComplete(conn);
        }
        if (conn.out.hasRemaining()) {
            c.write(conn.out);
        }
        k.interestOps(conn.out.hasRemaining() ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
    }

    /** Answers every complete request in the input buffer (pipelined requests are answered in order). */
    private static void answerComplete(Conn conn) {
        StringBuilder answers = new StringBuilder();
        ByteBuffer in = conn.in.flip();
        while (true) {
            int end = headerEnd(in);
            if (end < 0) {
                break;
            }
            String head = StandardCharsets.ISO_8859_1
                    .decode(in.slice(in.position(), end - in.position()))
                    .toString();
            long length = header(head, "content-length", 0);
            if (end + 4 + length > in.limit()) {
                break;
            }
            in.position((int) (end + 4 + length));
            conn.port.requests.incrementAndGet();
            long call = header(head, "x-dht-call", -1);
            String method = head.substring(0, head.indexOf(' '));
            byte[] body = method.equals("GET") ? GET_BODY : new byte[0];
            String status = switch (method) {
                case "PUT" -> "201 Created";
                case "DELETE" -> "202 Accepted";
                default -> "200 OK";
            };
            answers.append("HTTP/1.1 ").append(status).append("\r\n");
            if (call >= 0) {
                answers.append("X-Dht-Call: ").append(call).append("\r\n");
            }
            answers.append("Content-Length: ")
                    .append(body.length)
                    .append("\r\n\r\n")
                    .append(new String(body, StandardCharsets.ISO_8859_1));
        }
        in.compact();
        if (!answers.isEmpty()) {
            byte[] a = answers.toString().getBytes(StandardCharsets.ISO_8859_1);
            ByteBuffer out = ByteBuffer.allocate(conn.out.remaining() + a.length);
            conn.out = out.put(conn.out).put(a).flip();
        }
    }

    /** Index of the "\r\n\r\n" ending the first request's head, or -1. */
    private static int headerEnd(ByteBuffer b) {
        for (int i = b.position(); i + 3 < b.limit(); i++) {
            if (b.get(i) == '\r' && b.get(i + 1) == '\n' && b.get(i + 2) == '\r' && b.get(i + 3) == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static long header(String head, String name, long otherwise) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                return Long.parseLong(line.substring(colon + 1).trim());
            }
        }
        return otherwise;
    }

    private static void drop(SelectionKey k) {
        if (k.attachment() instanceof Conn conn) {
            conn.port.open.decrementAndGet();
        }
        k.cancel();
        try {
            k.channel().close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        selector.wakeup();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SelectionKey k : selector.keys()) {
            k.channel().close();
        }
        selector.close();
    }
}
