package dev.dht.node.tls;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import one.nio.net.Msg;
import one.nio.net.SelectableJavaSocket;
import one.nio.net.Socket;
import one.nio.net.SocketClosedException;
import one.nio.net.SslContext;
import one.nio.net.SslOption;

/**
 * An accepted member-port connection under TLS, as a one-nio socket: one-nio's selector sees the channel of the
 * accepted JDK socket (its JavaSelector registers {@link #getSelectableChannel}), its session reads and writes
 * plaintext here, and {@link TlsConnection} does the rest. one-nio's own server TLS needs its native library, and
 * in its JDK fallback {@code sslWrap} does nothing; this class is why the member plane has one TLS code path on
 * every platform (docs/security.md, "TLS").
 *
 * <p>What one-nio's session cannot know, this socket tells it through the return values it already understands:
 * <ul>
 *   <li>a read that must first send handshake bytes the socket did not take returns -1: the session waits for
 *       writability and reads again (one-nio's SSL protocol);</li>
 *   <li>a write whose ciphertext the socket did not fully take reports one plaintext byte fewer than it took: the
 *       session keeps that byte queued and waits for writability, and the next write, which starts with that byte,
 *       first flushes the ciphertext and then reports the byte taken. Encrypted bytes are never left behind
 *       without the session waiting to write them;</li>
 *   <li>plaintext already decrypted (or whole records already read) that no readiness will signal:
 *       {@link #bufferedInput()}, which the selector loop asks after each session it processes.</li>
 * </ul>
 */
public final class TlsSocket extends SelectableJavaSocket {
    private final SelectableJavaSocket raw;
    private final SocketChannel channel;
    private final TlsConnection tls;
    private final long generation;
    private static final String PLAINTEXT_REASON = "this port speaks TLS only: use https:// and the cluster's CA\n";
    private static final byte[] PLAINTEXT_ANSWER = ("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n"
                    + "Connection: close\r\nContent-Length: " + PLAINTEXT_REASON.length() + "\r\n\r\n"
                    + PLAINTEXT_REASON)
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** Plaintext bytes already encrypted whose acceptance is reported on the next write (see the class comment). */
    private int owed;
    /** The handshake failed and the alert went out ({@link #refuse}): what the peer still sends is read away. */
    private boolean refused;

    /**
     * @param generation      the TLS material's generation (sessions of an older one end: see DhtSession)
     * @param answerPlaintext a plaintext HTTP request gets a plaintext 400 saying to use TLS before the connection
     *                        closes (the client port; the member port drops it without an answer)
     */
    public TlsSocket(SelectableJavaSocket raw, SSLEngine engine, long generation, boolean answerPlaintext)
            throws SSLException {
        this.raw = raw;
        this.channel = (SocketChannel) raw.getSelectableChannel();
        this.tls = new TlsConnection(engine, channel);
        this.generation = generation;
        if (answerPlaintext) {
            tls.detectPlaintext();
        }
    }

    public long generation() {
        return generation;
    }

    /** The TLS engine: after the handshake, its session holds the peer's certificate. */
    public SSLEngine engine() {
        return tls.engine();
    }

    public boolean bufferedInput() {
        return tls.bufferedInput();
    }

    @Override
    public SelectableChannel getSelectableChannel() {
        return channel;
    }

    /**
     * Ends a connection whose handshake failed without hiding why from the peer: the alert (or the plaintext answer)
     * is sent and our side shut, and the connection stays open for reading until the peer closes it. A client
     * writes the last of its handshake (the JDK's Finished) after the records the node refused: closed at once, the
     * node's socket would answer that with a reset, which can reach the client before the alert and hide it.
     */
    public void refuse() {
        if (refused) {
            return;
        }
        refused = true;
        tls.closeQuietly();
        try {
            channel.shutdownOutput();
        } catch (IOException ignored) {
            // the peer is gone already
        }
    }

    public boolean refused() {
        return refused;
    }

    @Override
    public int read(byte[] data, int offset, int count, int flags) throws IOException {
        if (refused) {
            if (channel.read(ByteBuffer.wrap(data, offset, count)) < 0) {
                throw new SocketClosedException();
            }
            return 0;
        }
        int n;
        try {
            n = tls.read(ByteBuffer.wrap(data, offset, count));
        } catch (TlsConnection.PlaintextException e) {
            // One small write on a fresh connection: the socket takes it whole, or the client gets no explanation.
            channel.write(ByteBuffer.wrap(PLAINTEXT_ANSWER));
            throw e;
        }
        if (n == TlsConnection.EOF) {
            throw new SocketClosedException();
        }
        return n == TlsConnection.WANT_WRITE ? -1 : n;
    }

    @Override
    public int write(byte[] data, int offset, int count, int flags) throws IOException {
        if (owed > 0) {
            if (!tls.flush()) {
                return 0;
            }
            int n = Math.min(owed, count);
            owed -= n;
            return n;
        }
        if (!tls.flush()) {
            return 0;
        }
        int taken = tls.write(ByteBuffer.wrap(data, offset, count));
        if (taken > 0 && tls.pendingOutput()) {
            owed = 1;
            return taken - 1;
        }
        return taken;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        byte[] b = new byte[dst.remaining()];
        int n = read(b, 0, b.length, 0);
        if (n > 0) {
            dst.put(b, 0, n);
        }
        return n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        byte[] b = new byte[src.remaining()];
        src.get(src.position(), b);
        int n = write(b, 0, b.length, 0);
        if (n > 0) {
            src.position(src.position() + n);
        }
        return n;
    }

    @Override
    public boolean isOpen() {
        return raw.isOpen();
    }

    @Override
    public void close() {
        if (raw.isOpen()) {
            tls.closeQuietly();
            discardInput();
        }
        raw.close();
    }

    /**
     * Reads away what the peer sent that was not read yet (the rest of a handshake flight that failed): a socket
     * closed with unread input sends a reset, which can reach the peer before the alert just written and hide it.
     */
    private void discardInput() {
        ByteBuffer sink = ByteBuffer.allocate(4096);
        try {
            for (int i = 0; i < 16 && channel.read(sink) > 0; i++) {
                sink.clear();
            }
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        return raw.getLocalAddress();
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
        return raw.getRemoteAddress();
    }

    // ---- socket options: the raw socket's -------------------------------------------------------------------

    @Override
    public void setBlocking(boolean blocking) {
        raw.setBlocking(blocking);
    }

    @Override
    public boolean isBlocking() {
        return raw.isBlocking();
    }

    @Override
    public void setTimeout(int timeout) {
        raw.setTimeout(timeout);
    }

    @Override
    public int getTimeout() {
        return raw.getTimeout();
    }

    @Override
    public void setKeepAlive(boolean keepAlive) {
        raw.setKeepAlive(keepAlive);
    }

    @Override
    public boolean getKeepAlive() {
        return raw.getKeepAlive();
    }

    @Override
    public void setNoDelay(boolean noDelay) {
        raw.setNoDelay(noDelay);
    }

    @Override
    public boolean getNoDelay() {
        return raw.getNoDelay();
    }

    @Override
    public void setTcpFastOpen(boolean tcpFastOpen) {
        raw.setTcpFastOpen(tcpFastOpen);
    }

    @Override
    public boolean getTcpFastOpen() {
        return raw.getTcpFastOpen();
    }

    @Override
    public void setDeferAccept(boolean deferAccept) {
        raw.setDeferAccept(deferAccept);
    }

    @Override
    public boolean getDeferAccept() {
        return raw.getDeferAccept();
    }

    @Override
    public void setReuseAddr(boolean reuseAddr, boolean reusePort) {
        raw.setReuseAddr(reuseAddr, reusePort);
    }

    @Override
    public boolean getReuseAddr() {
        return raw.getReuseAddr();
    }

    @Override
    public boolean getReusePort() {
        return raw.getReusePort();
    }

    @Override
    public void setRecvBuffer(int recvBuf) {
        raw.setRecvBuffer(recvBuf);
    }

    @Override
    public int getRecvBuffer() {
        return raw.getRecvBuffer();
    }

    @Override
    public void setSendBuffer(int sendBuf) {
        raw.setSendBuffer(sendBuf);
    }

    @Override
    public int getSendBuffer() {
        return raw.getSendBuffer();
    }

    @Override
    public void setTos(int tos) {
        raw.setTos(tos);
    }

    @Override
    public int getTos() {
        return raw.getTos();
    }

    @Override
    public byte[] getOption(int level, int option) {
        return raw.getOption(level, option);
    }

    @Override
    public boolean setOption(int level, int option, byte[] value) {
        return raw.setOption(level, option, value);
    }

    // ---- what a server session never asks of an accepted TLS socket ------------------------------------------

    @Override
    public Socket accept() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void connect(InetAddress address, int port) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void bind(InetAddress address, int port, int backlog) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void listen(int backlog) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int writeRaw(long buf, int count, int flags) {
        throw new UnsupportedOperationException("raw memory writes bypass TLS");
    }

    @Override
    public int readRaw(long buf, int count, int flags) {
        throw new UnsupportedOperationException("raw memory reads bypass TLS");
    }

    @Override
    public void writeFully(byte[] data, int offset, int count) {
        throw new UnsupportedOperationException("blocking writes on a selector-driven TLS socket");
    }

    @Override
    public void readFully(byte[] data, int offset, int count) {
        throw new UnsupportedOperationException("blocking reads on a selector-driven TLS socket");
    }

    @Override
    public int send(ByteBuffer src, int flags, InetAddress address, int port) {
        throw new UnsupportedOperationException();
    }

    @Override
    public InetSocketAddress recv(ByteBuffer dst, int flags) {
        throw new UnsupportedOperationException();
    }

    @Override
    public long sendFile(RandomAccessFile file, long offset, long count) {
        throw new UnsupportedOperationException("sendfile bypasses TLS");
    }

    @Override
    public int sendMsg(Msg msg, int flags) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int recvMsg(Msg msg, int flags) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Socket sslWrap(SslContext context) {
        throw new UnsupportedOperationException("already TLS");
    }

    @Override
    public Socket sslUnwrap() {
        return raw;
    }

    @Override
    public SslContext getSslContext() {
        return null;
    }

    @Override
    public <T> T getSslOption(SslOption<T> option) {
        return null;
    }
}
