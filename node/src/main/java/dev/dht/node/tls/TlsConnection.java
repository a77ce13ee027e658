package dev.dht.node.tls;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * TLS over a non-blocking SocketChannel with the JDK's SSLEngine: the one TLS code path of the member plane, used
 * by the server side ({@link TlsSocket}, under one-nio) and the peer client. Nothing here blocks: a call does what
 * the socket allows and says what it waits for.
 *
 * <ul>
 *   <li>{@link #read} returns plaintext, drives the handshake (its tasks run inline: handshakes happen once per
 *       pooled connection), and reports {@link #WANT_WRITE} when handshake bytes could not all be sent.</li>
 *   <li>{@link #write} encrypts as much as it can (several records, one socket write) and reports how much
 *       plaintext it took; encrypted bytes the socket did not take stay in {@link #pendingOutput()} until the next
 *       {@link #flush}: the caller must wait for writability while there are any.</li>
 *   <li>{@link #bufferedInput()}: plaintext or ciphertext already read from the socket that a selector would not
 *       signal again; the caller must read on without waiting for readiness.</li>
 * </ul>
 *
 * Not thread-safe: one-nio sessions and peer connections call it under their own lock.
 */
public final class TlsConnection {
    /** {@link #read}: handshake bytes are waiting to be sent; call again once the socket is writable. */
    public static final int WANT_WRITE = -2;
    /** {@link #read}: the peer closed the connection. */
    public static final int EOF = -1;
    /** Records wrapped into the outgoing buffer before one socket write. */
    private static final int RECORDS_PER_WRITE = 4;

    private static final int MAX_STEPS = 1024;

    private final SSLEngine engine;
    private final ByteChannel channel;
    /** Ciphertext read from the socket, not yet unwrapped (write mode: position = end of data). */
    private ByteBuffer netIn;
    /** Plaintext unwrapped, not yet returned (read mode). */
    private ByteBuffer appIn;
    /**
     * Ciphertext wrapped, not yet written to the socket (read mode). On the heap, like netIn and appIn: the JDK's
     * AES-GCM encrypts array to array in place, while a direct buffer on either side makes it copy through arrays it
     * allocates per record (half of what its encryption allocated, 13% of a TLS node's allocation, measured). The
     * socket write's copy into the JDK's cached direct buffer costs less.
     */
    private final ByteBuffer netOut;

    private boolean closed;
    /** Bytes read from the socket so far (handshake records included). */
    private long received;
    /**
     * This {@link #read} found the socket empty: a socket read that did not fill the buffer took all it held, so
     * reading again before readiness is signalled would only return 0. Every read event cost that extra read(2)
     * (about one syscall more per request batch than plaintext, where one-nio reads once per event).
     */
    private boolean drained;
    /** Whether the peer's first bytes are still to be looked at for plaintext HTTP ({@link #detectPlaintext}). */
    private boolean firstBytes;

    /** @param channel a non-blocking socket (a ByteChannel so that tests can count what is asked of it) */
    public TlsConnection(SSLEngine engine, ByteChannel channel) throws SSLException {
        this.engine = engine;
        this.channel = channel;
        int packet = engine.getSession().getPacketBufferSize();
        int app = engine.getSession().getApplicationBufferSize();
        this.netIn = ByteBuffer.allocate(packet);
        this.appIn = ByteBuffer.allocate(app).flip();
        this.netOut = ByteBuffer.allocate(packet * RECORDS_PER_WRITE).flip();
        engine.beginHandshake();
    }

    public SSLEngine engine() {
        return engine;
    }

    /**
     * The peer's first bytes are looked at: a plaintext HTTP request (a TLS record starts with a byte below 0x20,
     * a request with its method's capital letter) makes {@link #read} throw {@link PlaintextException}, so that the
     * server can say what is wrong instead of dropping the connection.
     */
    public void detectPlaintext() {
        firstBytes = true;
    }

    /** A plaintext request where TLS was expected. */
    public static final class PlaintextException extends SSLException {
        private static final long serialVersionUID = 1L;

        PlaintextException() {
            super("a plaintext HTTP request on a port that speaks TLS only");
        }
    }

    /**
     * Plaintext into dst, as much as the socket already holds (several records): the number of bytes (0: nothing
     * yet), {@link #EOF} or {@link #WANT_WRITE}.
     */
    public int read(ByteBuffer dst) throws IOException {
        if (!flush()) {
            return WANT_WRITE;
        }
        drained = false;
        int total = 0;
        for (int step = 0; step < MAX_STEPS; step++) {
            if (appIn.hasRemaining()) {
                total += drain(dst);
                if (!dst.hasRemaining()) {
                    return total;
                }
            }
            if (closed) {
                return total > 0 ? total : EOF;
            }
            SSLEngineResult.HandshakeStatus hs = engine.getHandshakeStatus();
            if (hs == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                runTasks();
                continue;
            }
            if (hs == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                if (total > 0) {
                    return total; // the next read sends it (bufferedInput() says there is work)
                }
                wrap(EMPTY);
                if (!flush()) {
                    return WANT_WRITE;
                }
                continue;
            }
            if (firstBytes && netIn.position() > 0) {
                firstBytes = false;
                byte b = netIn.get(0);
                if (b >= 'A' && b <= 'Z') {
                    throw new PlaintextException();
                }
            }
            netIn.flip();
            appIn.compact();
            SSLEngineResult r;
            try {
                r = engine.unwrap(netIn, appIn);
            } finally {
                appIn.flip();
                netIn.compact();
            }
            switch (r.getStatus()) {
                case OK -> {
                    if (r.bytesConsumed() == 0 && r.bytesProduced() == 0 && fill() == 0) {
                        return total;
                    }
                }
                case BUFFER_UNDERFLOW -> {
                    if (netIn.position() == netIn.capacity()) {
                        netIn = grow(netIn, engine.getSession().getPacketBufferSize());
                    }
                    if (fill() == 0) {
                        return total;
                    }
                }
                case BUFFER_OVERFLOW ->
                    appIn = growRead(appIn, engine.getSession().getApplicationBufferSize());
                case CLOSED -> {
                    closed = true;
                    if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                        wrap(EMPTY); // our close_notify
                        flush();
                    }
                }
            }
        }
        throw new SSLException("TLS made no progress in " + MAX_STEPS + " steps");
    }

    /**
     * Reads ciphertext from the socket: bytes read, 0 if none (or if an earlier read of this {@link #read} already
     * emptied it), and marks the end of the stream.
     */
    private int fill() throws IOException {
        if (drained) {
            return 0;
        }
        int space = netIn.remaining();
        int n = channel.read(netIn);
        if (n > 0) {
            received += n;
        }
        if (n >= 0 && n < space) {
            drained = true;
        }
        if (n < 0) {
            closed = true;
            try {
                engine.closeInbound();
            } catch (SSLException truncated) {
                // the peer went away without close_notify: the connection is over either way
            }
            return 1; // progress: the loop sees closed
        }
        return n;
    }

    private int drain(ByteBuffer dst) {
        int n = Math.min(dst.remaining(), appIn.remaining());
        ByteBuffer slice = appIn.slice(appIn.position(), n);
        dst.put(slice);
        appIn.position(appIn.position() + n);
        return n;
    }

    /**
     * Encrypts plaintext from src (its position advances by what was taken) and sends what the socket takes.
     * Returns the plaintext bytes taken; during the handshake that may be 0 until the peer answered.
     */
    public int write(ByteBuffer src) throws IOException {
        if (closed || engine.isOutboundDone()) {
            throw new IOException("TLS connection closed");
        }
        flush();
        int taken = 0;
        for (int step = 0; step < MAX_STEPS; step++) {
            SSLEngineResult.HandshakeStatus hs = engine.getHandshakeStatus();
            if (hs == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                runTasks();
                continue;
            }
            if (hs == SSLEngineResult.HandshakeStatus.NEED_UNWRAP) {
                break; // the peer speaks next (a read resumes the handshake): what was wrapped goes out now
            }
            if (!src.hasRemaining() && hs != SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                break;
            }
            SSLEngineResult r = wrap(src);
            taken += r.bytesConsumed();
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                if (!flush() && netOut.remaining() > 0) {
                    break; // the socket is full: the rest waits for writability
                }
                continue;
            }
            if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new IOException("TLS connection closed");
            }
            if (r.bytesConsumed() == 0 && r.bytesProduced() == 0) {
                break;
            }
        }
        flush();
        return taken;
    }

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    /** Wraps into netOut (kept in read mode around the call). */
    private SSLEngineResult wrap(ByteBuffer src) throws SSLException {
        netOut.compact();
        try {
            return engine.wrap(src, netOut);
        } finally {
            netOut.flip();
        }
    }

    /** Writes pending ciphertext; true when none is left. */
    public boolean flush() throws IOException {
        while (netOut.hasRemaining()) {
            if (channel.write(netOut) == 0) {
                return false;
            }
        }
        return true;
    }

    /** Encrypted bytes are waiting for the socket: wait for writability, then {@link #flush}. */
    public boolean pendingOutput() {
        return netOut.hasRemaining();
    }

    /**
     * Plaintext, or a whole TLS record, already read from the socket waits to be returned, or the handshake has work
     * to do: no readiness will be signalled for it. (A partial record is not counted: the rest of it will make the
     * socket readable.)
     */
    public boolean bufferedInput() {
        if (appIn.hasRemaining()) {
            return true;
        }
        SSLEngineResult.HandshakeStatus hs = engine.getHandshakeStatus();
        if (!closed
                && (hs == SSLEngineResult.HandshakeStatus.NEED_WRAP
                        || hs == SSLEngineResult.HandshakeStatus.NEED_TASK)) {
            return true; // handshake work that no readiness will prompt
        }
        int buffered = netIn.position();
        if (closed || buffered < 5) {
            return false;
        }
        int length = (netIn.get(3) & 0xff) << 8 | (netIn.get(4) & 0xff); // the record header's length field
        return buffered >= 5 + length;
    }

    /** Bytes read from the peer so far, handshake included: it changes whenever the peer was heard from. */
    public long received() {
        return received;
    }

    public boolean handshaking() {
        SSLEngineResult.HandshakeStatus hs = engine.getHandshakeStatus();
        return hs != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && hs != SSLEngineResult.HandshakeStatus.FINISHED;
    }

    /**
     * Sends close_notify if the socket takes it at once; the caller closes the channel. A handshake given up (a
     * connection dropped before it is done) ends with the TCP close alone: closing the engine then makes it say
     * user_canceled, unencrypted if it has no handshake keys yet, and a TLS 1.3 peer that already sent its
     * ServerHello expects encrypted records and fails on it (JDK: SSLProtocolException "Unexpected exception",
     * caused by "Unexpected plaintext alert received"), reported there as a handshake failure that was none.
     * What the engine already has to send (the alert of a handshake that failed here) still goes out.
     */
    public void closeQuietly() {
        try {
            if (!handshaking()) {
                engine.closeOutbound();
            }
            if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                wrap(EMPTY);
            }
            flush();
        } catch (IOException | RuntimeException ignored) {
            // closing anyway
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    private static ByteBuffer grow(ByteBuffer writeMode, int atLeast) {
        ByteBuffer bigger = ByteBuffer.allocate(Math.max(writeMode.capacity() * 2, atLeast));
        writeMode.flip();
        bigger.put(writeMode);
        return bigger;
    }

    private static ByteBuffer growRead(ByteBuffer readMode, int atLeast) {
        ByteBuffer bigger = ByteBuffer.allocate(Math.max(readMode.capacity() * 2, readMode.remaining() + atLeast));
        bigger.put(readMode);
        return bigger.flip();
    }
}
