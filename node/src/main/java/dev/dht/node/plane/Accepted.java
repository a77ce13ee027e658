package dev.dht.node.plane;

import dev.dht.node.tls.ClientTls;
import dev.dht.node.tls.MemberTls;
import dev.dht.node.tls.TlsSocket;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import one.nio.net.SelectableJavaSocket;
import one.nio.net.Socket;
import one.nio.server.RejectedSessionException;

/**
 * An accepted connection as its session sees it: its plane (the port it came in on), whether the peer is on
 * loopback (admin rights on the client port), and on a port with TLS the socket wrapped in it.
 */
public record Accepted(Socket socket, Plane plane, boolean loopbackPeer) {

    /**
     * @param memberPort  the member port: connections accepted there are of the member plane
     * @param metricsPort the metrics port (0: none)
     * @param memberTls   the member port's mutual TLS, or null for plaintext
     * @param clientTls   the client port's TLS, or null for plaintext
     */
    public static Accepted of(Socket socket, int memberPort, int metricsPort, MemberTls memberTls, ClientTls clientTls)
            throws RejectedSessionException {
        InetSocketAddress local = socket.getLocalAddress();
        InetSocketAddress remote = socket.getRemoteAddress();
        int port = local == null ? -1 : local.getPort();
        Plane plane = port == memberPort
                ? Plane.MEMBER
                : metricsPort > 0 && port == metricsPort ? Plane.METRICS : Plane.CLIENT;
        boolean loopback = remote != null
                && remote.getAddress() != null
                && remote.getAddress().isLoopbackAddress();
        // The handshake runs on the selector as the peer's bytes come in (TlsSocket): a member without a
        // certificate from a trusted CA is dropped there and gets no answer; a client gets the TLS alert.
        if (plane == Plane.MEMBER && memberTls != null) {
            socket = wrap(socket, memberTls.serverEngine(), memberTls.generation(), false);
        } else if (plane == Plane.CLIENT && clientTls != null) {
            socket = wrap(socket, clientTls.serverEngine(), clientTls.generation(), true);
        }
        return new Accepted(socket, plane, loopback);
    }

    private static Socket wrap(Socket socket, SSLEngine engine, long generation, boolean answerPlaintext)
            throws RejectedSessionException {
        try {
            return new TlsSocket((SelectableJavaSocket) socket, engine, generation, answerPlaintext);
        } catch (SSLException | ClassCastException e) {
            throw new RejectedSessionException(e);
        }
    }
}
