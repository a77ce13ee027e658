package dev.dht.node.plane;

import dev.dht.node.tls.MemberTls;
import dev.dht.node.tls.TlsSocket;
import one.nio.net.SelectableJavaSocket;
import one.nio.net.Socket;
import one.nio.server.RejectedSessionException;

import javax.net.ssl.SSLException;
import java.net.InetSocketAddress;

/**
 * An accepted connection as its session sees it: its plane (the port it came in on), whether the peer is on
 * loopback (admin rights on the client port), and on a member port with TLS the socket wrapped in it.
 */
public record Accepted(Socket socket, Plane plane, boolean loopbackPeer) {

    /**
     * @param memberPort the member port: connections accepted there are of the member plane
     * @param tls        the member port's mutual TLS, or null for plaintext
     */
    public static Accepted of(Socket socket, int memberPort, MemberTls tls) throws RejectedSessionException {
        InetSocketAddress local = socket.getLocalAddress();
        InetSocketAddress remote = socket.getRemoteAddress();
        Plane plane = local != null && local.getPort() == memberPort ? Plane.MEMBER : Plane.CLIENT;
        boolean loopback = remote != null && remote.getAddress() != null && remote.getAddress().isLoopbackAddress();
        if (plane == Plane.MEMBER && tls != null) {
            // The handshake runs on the selector as the peer's bytes come in (TlsSocket); a peer without a
            // certificate from a trusted CA is dropped there and gets no answer.
            try {
                socket = new TlsSocket((SelectableJavaSocket) socket, tls.serverEngine(), tls.generation());
            } catch (SSLException | ClassCastException e) {
                throw new RejectedSessionException(e);
            }
        }
        return new Accepted(socket, plane, loopback);
    }
}
