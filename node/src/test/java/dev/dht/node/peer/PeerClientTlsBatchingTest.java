package dev.dht.node.peer;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.loop.SelectorLoop;
import dev.dht.node.plane.MemberPlane;
import dev.dht.node.support.MemberCalls;
import dev.dht.node.support.TestCertificates;
import dev.dht.node.support.TestNode;
import dev.dht.node.tls.MemberTls;
import one.nio.net.Selector;
import one.nio.net.Session;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests a coordinator starts in one selector pass go to a TLS peer in one write at the end of the pass, even when
 * answers on the same connection come in meanwhile. (The I/O thread, reading an answer, used to write the requests
 * buffered so far: a PUT's replica calls went out in several TLS records and writes, and the selector thread
 * waited on the connection's lock meanwhile.) A real node with a TLS member port; between them a proxy that can
 * hold the node's answers and sees when the client's bytes arrive.
 */
class PeerClientTlsBatchingTest {
    private static final long BOUND_MILLIS = 10_000;

    @TempDir
    Path dir;

    @Test
    void requestsOfAPassWaitForItsEndWhileAnswersComeIn() throws Exception {
        TestCertificates ca = TestCertificates.authority("ca");
        TestCertificates.Member nodeFiles = ca.issue(dir.resolve("node"), "node");
        TestCertificates.Member callerFiles = ca.issue(dir.resolve("caller"), "caller");
        int port = TestNode.freePort();
        String url = "http://localhost:" + port;
        NodeConfig config = NodeConfig.defaults(port, dir.resolve("data"))
                .withCluster(ClusterMembers.of(List.of(url)), url);
        ScriptedSelector selector = new ScriptedSelector();
        SelectorLoop loop = new SelectorLoop(selector, "test-pass");
        loop.setDaemon(true);
        try (TestNode node = TestNode.start(config.withSecurity(config.security().withMemberTls(
                new SecuritySettings.TlsFiles(nodeFiles.cert(), nodeFiles.key(), nodeFiles.ca()))));
             MemberTls tls = MemberTls.open(callerFiles.cert(), callerFiles.key(), callerFiles.ca(),
                     Duration.ofMinutes(1));
             HoldingProxy proxy = new HoldingProxy(node.node().server().memberPort());
             PeerClient client = new PeerClient(new MemberPlane(0, tls), 1, 8, Duration.ofSeconds(10),
                     Duration.ofSeconds(30))) {
            loop.start();
            String peer = "http://localhost:" + proxy.port();
            assertThat(MemberCalls.get(client, peer, "/v0/entity?id=first")).as("handshake, one connection")
                    .isEqualTo("404");

            // an answer on its way back, held in the proxy
            proxy.hold();
            long sentBefore = proxy.received();
            CompletableFuture<String> early = MemberCalls.send(client, peer, "/v0/entity?id=early", BOUND_MILLIS);
            awaitChange(proxy::received, sentBefore, "the early request reaches the proxy");
            proxy.awaitHolding();

            // one pass: a request, the early answer comes in and is read, another request; then the pass ends
            CompletableFuture<List<CompletableFuture<String>>> pass = new CompletableFuture<>();
            long[] bytes = new long[2];
            selector.run(() -> {
                try {
                    CompletableFuture<String> b = MemberCalls.send(client, peer, "/v0/entity?id=b", BOUND_MILLIS);
                    long before = proxy.received();
                    proxy.release();
                    assertThat(early.get(BOUND_MILLIS, TimeUnit.MILLISECONDS)).isEqualTo("404");
                    // a write now would reach the proxy at once (loopback); give it a generous moment
                    long end = System.currentTimeMillis() + 500;
                    while (proxy.received() == before && System.currentTimeMillis() < end) {
                        Thread.onSpinWait();
                    }
                    bytes[0] = before;
                    bytes[1] = proxy.received();
                    CompletableFuture<String> c = MemberCalls.send(client, peer, "/v0/entity?id=c", BOUND_MILLIS);
                    pass.complete(List.of(b, c));
                } catch (Throwable e) {
                    pass.completeExceptionally(e);
                }
            });
            List<CompletableFuture<String>> calls = pass.get(30, TimeUnit.SECONDS);
            assertThat(bytes[1]).as("bytes sent to the peer during the pass, after the answer was read")
                    .isEqualTo(bytes[0]);
            for (CompletableFuture<String> call : calls) {
                assertThat(call.get(30, TimeUnit.SECONDS)).as("both requests answered after the pass").isEqualTo("404");
            }
            assertThat(client.connections(peer)).isEqualTo(1);
        } finally {
            selector.open = false;
            loop.join(10_000);
        }
    }

    private static void awaitChange(java.util.function.LongSupplier value, long from, String what) {
        long end = System.currentTimeMillis() + BOUND_MILLIS;
        while (value.getAsLong() == from) {
            assertThat(System.currentTimeMillis()).as(what).isLessThan(end);
            Thread.onSpinWait();
        }
    }

    /** A selector without sessions whose select() runs the given work on the loop thread: the body of a pass. */
    private static final class ScriptedSelector extends Selector {
        private final BlockingQueue<Runnable> work = new LinkedBlockingQueue<>();
        volatile boolean open = true;

        void run(Runnable passBody) {
            work.add(passBody);
        }

        @Override
        public Iterator<Session> select() {
            try {
                Runnable r = work.poll(10, TimeUnit.MILLISECONDS);
                if (r != null) {
                    r.run();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Collections.emptyIterator();
        }

        @Override
        public int size() {
            return 0;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }

        @Override
        public void register(Session session) {
        }

        @Override
        public void unregister(Session session) {
        }

        @Override
        public void enable(Session session) {
        }

        @Override
        public void disable(Session session) {
        }

        @Override
        public void listen(Session session, int events) {
        }

        @Override
        public Iterator<Session> iterator() {
            return Collections.emptyIterator();
        }

        @Override
        public long lastWakeupTime() {
            return 0;
        }
    }

    /**
     * A TCP proxy to a port that counts the bytes the client sent and can hold what the server sends (the chunk
     * read while held waits until {@link #release}).
     */
    private static final class HoldingProxy implements AutoCloseable {
        private final ServerSocket listener;
        private final int target;
        private final AtomicLong received = new AtomicLong();
        private final Object lock = new Object();
        private boolean held;
        private boolean holding;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        HoldingProxy(int target) throws IOException {
            this.target = target;
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::accept, "holding-proxy");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        long received() {
            return received.get();
        }

        void hold() {
            synchronized (lock) {
                held = true;
            }
        }

        void release() {
            synchronized (lock) {
                held = false;
                lock.notifyAll();
            }
        }

        /** Until a chunk from the server waits in the proxy. */
        void awaitHolding() throws InterruptedException {
            long end = System.currentTimeMillis() + BOUND_MILLIS;
            synchronized (lock) {
                while (!holding) {
                    assertThat(System.currentTimeMillis()).as("the answer reaches the proxy").isLessThan(end);
                    lock.wait(100);
                }
            }
        }

        private void accept() {
            try {
                while (true) {
                    Socket client = listener.accept();
                    Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                    sockets.add(client);
                    sockets.add(server);
                    pump(client, server, false);
                    pump(server, client, true);
                }
            } catch (IOException closed) {
                // the proxy is closed
            }
        }

        private void pump(Socket from, Socket to, boolean fromServer) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[64 * 1024];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        if (fromServer) {
                            synchronized (lock) {
                                while (held) {
                                    holding = true;
                                    lock.notifyAll();
                                    lock.wait();
                                }
                                holding = false;
                            }
                        } else {
                            received.addAndGet(n);
                        }
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                } catch (IOException | InterruptedException e) {
                    // either side closed
                } finally {
                    close(from);
                    close(to);
                }
            }, "holding-proxy-pump");
            t.setDaemon(true);
            t.start();
        }

        private static void close(Socket s) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }

        @Override
        public void close() {
            release();
            try {
                listener.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            sockets.forEach(HoldingProxy::close);
        }
    }
}
