package dev.dht.node.peer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.plane.MemberPlane;
import dev.dht.node.support.MemberCalls;
import dev.dht.node.support.TestCertificates;
import dev.dht.node.support.TestNode;
import dev.dht.node.tls.MemberTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The peer client's TLS handshakes against a node's member port, through a proxy that holds back what the node
 * sends: a handshake slower than the client's timeouts, as on a cold cluster whose members all start at once.
 */
class PeerClientTlsHandshakeTest {
    @TempDir
    Path dir;

    private TestNode node;
    private MemberTls tls;

    @BeforeEach
    void start() {
        TestCertificates ca = TestCertificates.authority("ca");
        TestCertificates.Member nodeFiles = ca.issue(dir.resolve("node"), "node");
        TestCertificates.Member callerFiles = ca.issue(dir.resolve("caller"), "caller");
        int port = TestNode.freePort();
        String url = "http://localhost:" + port;
        NodeConfig config =
                NodeConfig.defaults(port, dir.resolve("data")).withCluster(ClusterMembers.of(List.of(url)), url);
        node = TestNode.start(config.withSecurity(config.security()
                .withMemberTls(new SecuritySettings.TlsFiles(nodeFiles.cert(), nodeFiles.key(), nodeFiles.ca()))));
        tls = MemberTls.open(callerFiles.cert(), callerFiles.key(), callerFiles.ca(), Duration.ofMinutes(1));
    }

    @AfterEach
    void stop() {
        tls.close();
        node.close();
    }

    /** A client of the node's member port through the proxy (offset 0: the proxy's port is the member port). */
    private PeerClient client(Duration connectTimeout) {
        return new PeerClient(new MemberPlane(0, tls), 8, 8, connectTimeout, Duration.ofSeconds(30));
    }

    /**
     * A handshake that outlasts the connect timeout and the first call's deadline is kept, not started over: the
     * call fails alone, the next one is answered on the same connection once the node's answer gets through, and
     * the node sees no failed handshake. (Dropped, as before, each connection of a cold cluster was thrown away with
     * its handshake, the node logged 'SSLProtocolException: Unexpected exception', and coordinators answered 504.)
     */
    @Test
    void aSlowHandshakeIsKeptAndItsConnectionServesTheNextCall() throws Exception {
        try (GatedProxy proxy = new GatedProxy(node.node().server().memberPort());
                PeerClient client = client(Duration.ofMillis(100))) {
            String peer = "http://localhost:" + proxy.port();

            // the node's ServerHello is held back: the first call's deadline passes, long after the connect timeout
            String first = get(client, peer, 500).get(30, TimeUnit.SECONDS);
            assertThat(first).startsWith("failed (timeout)");

            proxy.open();
            assertThat(get(client, peer, 10_000).get(30, TimeUnit.SECONDS)).isEqualTo("404");
            assertThat(proxy.connections()).as("connections the client opened").isEqualTo(1);
            assertThat(node.metric("dht_member_tls_handshake_failures_total")).isZero();
        }
    }

    /**
     * Calls that come while the first connection to a peer is in its handshake wait on it: no second handshake
     * starts until it is done (on a cold cluster each member opened all its connections to each peer at once, and
     * their handshakes, all slow together, outlasted the calls).
     */
    @Test
    void callsDuringAHandshakeWaitForItInsteadOfOpeningMoreConnections() throws Exception {
        try (GatedProxy proxy = new GatedProxy(node.node().server().memberPort());
                PeerClient client = client(Duration.ofSeconds(10))) {
            String peer = "http://localhost:" + proxy.port();
            List<CompletableFuture<String>> calls = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                calls.add(get(client, peer, 10_000));
            }
            proxy.open();
            for (CompletableFuture<String> call : calls) {
                assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("404");
            }
            assertThat(proxy.connections()).as("connections the client opened").isEqualTo(1);
        }
    }

    private static CompletableFuture<String> get(PeerClient client, String peer, long timeoutMs) {
        return MemberCalls.send(client, peer, "/v0/entity?id=nothing-here", timeoutMs);
    }

    /**
     * A TCP proxy to a port: what the client sends goes through at once, what the server sends waits until
     * {@link #open}.
     */
    private static final class GatedProxy implements AutoCloseable {
        private final ServerSocket listener;
        private final int target;
        private final CountDownLatch gate = new CountDownLatch(1);
        private final AtomicInteger connections = new AtomicInteger();
        private final List<Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();

        GatedProxy(int target) throws IOException {
            this.target = target;
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::accept, "gated-proxy");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        int connections() {
            return connections.get();
        }

        void open() {
            gate.countDown();
        }

        private void accept() {
            try {
                while (true) {
                    Socket client = listener.accept();
                    connections.incrementAndGet();
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

        private void pump(Socket from, Socket to, boolean gated) {
            Thread t = new Thread(
                    () -> {
                        byte[] buffer = new byte[16 * 1024];
                        try (InputStream in = from.getInputStream();
                                OutputStream out = to.getOutputStream()) {
                            if (gated) {
                                gate.await();
                            }
                            int n;
                            while ((n = in.read(buffer)) >= 0) {
                                out.write(buffer, 0, n);
                                out.flush();
                            }
                        } catch (IOException | InterruptedException e) {
                            // either side closed
                        } finally {
                            close(from);
                            close(to);
                        }
                    },
                    "gated-proxy-pump");
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
        public void close() throws IOException {
            gate.countDown();
            listener.close();
            sockets.forEach(GatedProxy::close);
        }
    }
}
