package dev.dht.node.http;

import dev.dht.node.auth.ClientCertificate;
import dev.dht.node.loop.SelectorLoop;
import dev.dht.node.plane.Plane;
import dev.dht.node.tls.ClientTls;
import dev.dht.node.tls.TlsSocket;
import java.io.IOException;
import one.nio.net.Socket;

/**
 * A session as a connection, apart from the requests on it ({@link DhtSession}): the plane it was accepted on and
 * who is at the other end, its TLS (input already decrypted, the client certificate, a failed handshake), the body
 * limit, and its liveness (idle, stalled or outdated connections closed by one-nio's cleanup). A superclass, as
 * {@link CorkedSession} is, so that the request path reads these fields directly. Guarded by the session's monitor.
 */
abstract class ConnectionSession extends CorkedSession implements SelectorLoop.BufferedInput {
    final ConnectionServer connectionServer;
    /** The port this connection came in on decides what it may ask (docs/security.md). */
    final Plane plane;
    /** The peer is on this machine's loopback: it has admin rights on the client port. */
    private final boolean loopbackPeer;
    /** The TLS socket of a member-port or client-port connection under TLS, or null for plaintext: decided once. */
    final TlsSocket tls;
    /** The client certificate of a client-port TLS connection (null: none), read at its first request. */
    private ClientCertificate clientCertificate;

    private boolean certificateRead;

    ConnectionSession(Socket socket, ConnectionServer server, Plane plane, boolean loopbackPeer) {
        super(socket, server);
        this.connectionServer = server;
        this.plane = plane;
        this.loopbackPeer = loopbackPeer;
        this.tls = socket instanceof TlsSocket t ? t : null;
    }

    Plane plane() {
        return plane;
    }

    boolean loopbackPeer() {
        return loopbackPeer;
    }

    /**
     * The client certificate of this connection, or null: read once, at the first request (the handshake is done
     * before any request arrives, and TLS 1.3 brings no certificate later). Selector thread, under the monitor.
     */
    ClientCertificate clientCertificate() {
        if (!certificateRead) {
            certificateRead = true;
            clientCertificate = tls == null || plane != Plane.CLIENT
                    ? null
                    : ClientCertificate.of(ClientTls.peerCertificate(tls.engine()));
        }
        return clientCertificate;
    }

    /**
     * A TLS session: requests already read and decrypted (or whole records already read) wait, and no
     * readiness will be signalled for them: the selector loop asks after each pass over this session. Only while
     * the session reads (listens READABLE): while answers are queued it listens for writability only, and reading
     * then would switch it back to reads and stall them; the pass that drains the queue asks again. A plaintext
     * session (the selector loop asks every session it processed) answers without taking the session's lock.
     */
    @Override
    public boolean processBuffered(byte[] buffer) throws Exception {
        if (tls == null) {
            return false;
        }
        synchronized (this) {
            if (eventsToListen != READABLE || !socket.isOpen() || !tls.bufferedInput()) {
                return false;
            }
            events = READABLE;
            process(buffer);
            return true;
        }
    }

    @Override
    protected int getMaxRequestBodyLength() {
        return connectionServer.maxBody();
    }

    // ---- liveness --------------------------------------------------------------------------------------------

    /**
     * one-nio's cleanup thread asks this every idle-timeout period; IDLE and STALE sessions are closed. A session
     * whose write queue has not moved for the send timeout belongs to a client that stopped reading: closing it
     * releases the queued body (a range stream closes its RocksDB iterator). An idle keep-alive connection goes
     * after the idle timeout.
     */
    @Override
    public int checkStatus(long currentTime, long keepAlive) {
        long lastAccess = lastAccessTime;
        if (tls != null && tls.refused()) {
            return IDLE; // a failed handshake whose client has not closed yet
        }
        if (plane == Plane.MEMBER
                && tls != null
                && queueHead == null
                && handling == null
                && tls.generation() < connectionServer.tlsGeneration(plane)) {
            return IDLE; // authenticated under TLS material that was replaced since: the peer reconnects under the new
        }
        if (queueHead != null) {
            return lastAccess < currentTime - connectionServer.sendTimeoutMillis() ? STALE : ACTIVE;
        }
        if (handling != null) {
            // Waiting for our own answer (a 10-minute profile capture, a coordinated request): bounded by the
            // request's own timeout, not by the keep-alive (one-nio would drop it after 8 x keep-alive).
            return ACTIVE;
        }
        long limit = plane == Plane.MEMBER ? DhtServer.memberIdleMillis(keepAlive) : keepAlive;
        return lastAccess < currentTime - limit ? IDLE : ACTIVE;
    }

    /**
     * A client that goes away mid-response shows up as an IOException ("Broken pipe", "Connection reset") on the
     * JDK socket fallback, which one-nio would log as an error with a stack trace. It is routine: close quietly.
     */
    @Override
    public void handleException(Throwable e) {
        if (e instanceof javax.net.ssl.SSLException && tls != null) {
            connectionServer.tlsFailed(plane, getRemoteHost(), e); // no certificate, an untrusted one, not TLS at all
            if (plane == Plane.CLIENT && !tls.refused()) {
                tls.refuse(); // the client gets the alert; the session ends when it closes, or as an idle one
                return;
            }
        }
        if (e instanceof IOException) {
            if (log.isDebugEnabled()) {
                log.debug("connection from {} closed: {}", getRemoteHost(), e.toString());
            }
            close();
        } else {
            super.handleException(e);
        }
    }
}
