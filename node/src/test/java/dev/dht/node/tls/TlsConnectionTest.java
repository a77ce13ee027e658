package dev.dht.node.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.support.TestCertificates;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLEngineResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@link TlsConnection}s over a loopback TCP connection, driven step by step: how a connection ends, as the
 * other side sees it.
 */
class TlsConnectionTest {
    private static final long BOUND_MILLIS = 10_000;

    @TempDir
    Path dir;

    private MemberTls tls;
    private SocketChannel clientChannel;
    private SocketChannel serverChannel;
    private TlsConnection client;
    private TlsConnection server;

    @BeforeEach
    void connect() throws IOException {
        TestCertificates.Member m = TestCertificates.authority("ca").issue(dir.resolve("m"), "member");
        tls = MemberTls.open(m.cert(), m.key(), m.ca(), Duration.ofMinutes(1));
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            clientChannel = SocketChannel.open(listener.getLocalAddress());
            serverChannel = listener.accept();
        }
        clientChannel.configureBlocking(false);
        serverChannel.configureBlocking(false);
        client = new TlsConnection(tls.clientEngine("localhost", 0), clientChannel);
        server = new TlsConnection(tls.serverEngine(), serverChannel);
    }

    @AfterEach
    void close() throws IOException {
        clientChannel.close();
        serverChannel.close();
        tls.close();
    }

    /**
     * A client that gives up its handshake after the server answered the ClientHello (in the cluster: a peer
     * connection dropped because its first calls timed out while a cold node was slow to answer) must end it in a
     * way the server can read: the server has its handshake keys by then and fails on an unencrypted alert
     * ("SSLProtocolException: Unexpected exception", logged and counted as a handshake failure).
     */
    @Test
    void aHandshakeGivenUpEndsAsAPlainCloseForThePeer() throws IOException {
        client.write(ByteBuffer.allocate(0)); // the ClientHello
        client.flush(); // (write already sent it: see theClientHelloGoesOutWithTheFirstWrite)
        // the server reads it and sends its flight (ServerHello ... Finished); the client does not read it
        ByteBuffer plain = ByteBuffer.allocate(1024);
        long end = System.currentTimeMillis() + BOUND_MILLIS;
        do {
            assertThat(System.currentTimeMillis())
                    .as("the server answers the ClientHello")
                    .isLessThan(end);
            awaitReadable(serverChannel);
            assertThat(server.read(plain)).isNotEqualTo(TlsConnection.EOF);
        } while (server.pendingOutput() || !readable(clientChannel, 0));
        assertThat(server.engine().getHandshakeStatus()).isEqualTo(SSLEngineResult.HandshakeStatus.NEED_UNWRAP);
        drainRaw(clientChannel); // not processed: only so that the close is a FIN, not a reset for unread data

        client.closeQuietly();
        clientChannel.close();

        assertThat(readToEnd(server, serverChannel)).isEqualTo(TlsConnection.EOF);
    }

    /**
     * The first write sends the ClientHello at once: the peer client's new connections do not wait a selector
     * round (for writability) before their handshake starts.
     */
    @Test
    void theClientHelloGoesOutWithTheFirstWrite() throws IOException {
        assertThat(client.write(ByteBuffer.wrap("early".getBytes(StandardCharsets.US_ASCII))))
                .isZero();
        assertThat(client.pendingOutput()).isFalse();
        assertThat(readable(serverChannel, BOUND_MILLIS))
                .as("the ClientHello reaches the server")
                .isTrue();
    }

    /** An established connection still ends with close_notify: the other side reads its end of the stream. */
    @Test
    void anEstablishedConnectionEndsWithCloseNotify() throws IOException {
        ByteBuffer request = ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII));
        ByteBuffer received = ByteBuffer.allocate(1024);
        long end = System.currentTimeMillis() + BOUND_MILLIS;
        while (received.position() < 5) {
            assertThat(System.currentTimeMillis())
                    .as("the handshake and the request")
                    .isLessThan(end);
            if (request.hasRemaining()) {
                client.write(request);
            }
            client.read(ByteBuffer.allocate(1024)); // the server's flight
            int n = server.read(received);
            assertThat(n).isNotEqualTo(TlsConnection.EOF);
        }
        assertThat(client.handshaking()).isFalse();
        drainRaw(clientChannel); // the session ticket, unread: the close is a FIN, not a reset

        client.closeQuietly();
        clientChannel.close();

        assertThat(readToEnd(server, serverChannel)).isEqualTo(TlsConnection.EOF);
        assertThat(server.engine().isInboundDone()).as("close_notify received").isTrue();
    }

    /**
     * A read event costs one socket read, as in plaintext: a read that did not fill the buffer emptied the socket,
     * and reading again before the next readiness only returns 0 (it did, once per event, before). What is there
     * still all arrives: a batch larger than the buffer is read on within the same call.
     */
    @Test
    void aReadEventCostsOneSocketReadAndStillTakesAllThatIsThere() throws IOException {
        CountingChannel counted = new CountingChannel(serverChannel);
        server = new TlsConnection(tls.serverEngine(), counted);
        ByteBuffer received = handshake();

        byte[] batch = new byte[300]; // a few pipelined requests: one record
        client.write(ByteBuffer.wrap(batch));
        assertThat(client.pendingOutput()).isFalse();
        awaitReadable(serverChannel);
        counted.reads = 0;
        received.clear();
        assertThat(server.read(received)).isEqualTo(batch.length);
        assertThat(counted.reads)
                .as("socket reads for one record that is all there")
                .isEqualTo(1);

        byte[] big = new byte[200 * 1024]; // more than the connection's buffers: several records, several reads
        ByteBuffer out = ByteBuffer.wrap(big);
        ByteBuffer all = ByteBuffer.allocate(big.length);
        long end = System.currentTimeMillis() + BOUND_MILLIS;
        while (all.hasRemaining()) {
            assertThat(System.currentTimeMillis()).as("the big batch arrives").isLessThan(end);
            if (out.hasRemaining() || client.pendingOutput()) {
                client.write(out);
            }
            awaitReadable(serverChannel);
            received.clear();
            int n = server.read(received);
            assertThat(n).isNotEqualTo(TlsConnection.EOF);
            all.put(received.flip());
        }
        assertThat(server.bufferedInput()).isFalse();
    }

    /** Drives both handshakes to the end with a first request ("hello"); the server's receive buffer, emptied. */
    private ByteBuffer handshake() throws IOException {
        ByteBuffer request = ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII));
        ByteBuffer received = ByteBuffer.allocate(64 * 1024);
        long end = System.currentTimeMillis() + BOUND_MILLIS;
        while (received.position() < 5 || client.handshaking()) {
            assertThat(System.currentTimeMillis())
                    .as("the handshake and the request")
                    .isLessThan(end);
            if (request.hasRemaining()) {
                client.write(request);
            }
            client.read(ByteBuffer.allocate(1024)); // the server's flight, then its session ticket
            assertThat(server.read(received)).isNotEqualTo(TlsConnection.EOF);
        }
        assertThat(new String(received.array(), 0, 5, StandardCharsets.US_ASCII))
                .isEqualTo("hello");
        return received.clear();
    }

    /** A socket whose reads are counted. */
    private static final class CountingChannel implements ByteChannel {
        private final SocketChannel channel;
        int reads;

        CountingChannel(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            reads++;
            return channel.read(dst);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return channel.write(src);
        }

        @Override
        public boolean isOpen() {
            return channel.isOpen();
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** Reads until the end of the stream (EOF) or an exception, which the test fails with. */
    private static int readToEnd(TlsConnection c, SocketChannel channel) throws IOException {
        ByteBuffer sink = ByteBuffer.allocate(1024);
        long end = System.currentTimeMillis() + BOUND_MILLIS;
        while (true) {
            assertThat(System.currentTimeMillis()).as("the end of the stream").isLessThan(end);
            awaitReadable(channel);
            sink.clear();
            int n = c.read(sink);
            if (n == TlsConnection.EOF) {
                return n;
            }
        }
    }

    /** Reads and drops what the socket holds, bypassing TLS. */
    private static void drainRaw(SocketChannel channel) throws IOException {
        ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
        awaitReadable(channel);
        while (channel.read(sink.clear()) > 0) {
            // dropped
        }
    }

    private static void awaitReadable(SocketChannel channel) throws IOException {
        readable(channel, 1000);
    }

    /** Whether the channel has bytes to read, waiting up to timeoutMillis (0: not at all). */
    private static boolean readable(SocketChannel channel, long timeoutMillis) throws IOException {
        try (Selector selector = Selector.open()) {
            channel.register(selector, SelectionKey.OP_READ);
            return (timeoutMillis == 0 ? selector.selectNow() : selector.select(timeoutMillis)) > 0;
        }
    }
}
