package dev.dht.node.http;

import dev.dht.node.loop.SelectorLoop;
import dev.dht.node.plane.Accepted;
import dev.dht.node.plane.Plane;
import java.util.ArrayList;
import java.util.List;
import one.nio.http.HttpServer;
import one.nio.http.HttpServerConfig;
import one.nio.http.HttpSession;
import one.nio.mgt.Management;
import one.nio.net.Session;
import one.nio.net.Socket;
import one.nio.server.AcceptorConfig;
import one.nio.server.RejectedSessionException;
import one.nio.server.SelectorThread;

/**
 * The connections half of the node's HTTP server, apart from what their requests get ({@link DhtServer}): the
 * ports and the plane each serves, their TLS, the selector loops that read them, the sessions accepted on them,
 * and the drain that ends them. A superclass, like {@link CorkedSession} is for the session, because one-nio wants
 * one {@link HttpServer}: requests reach {@link DhtServer#handleRequest} exactly as before the split.
 *
 * <p>Two ports, one server: the client port and the member port, and a third, the metrics port, when asked for
 * (docs/security.md). A session knows its plane from the port it was accepted on ({@link Accepted}). Either of the
 * first two may speak TLS, through the same code ({@code tls.TlsSocket}).
 */
abstract class ConnectionServer extends HttpServer {
    private final DhtServer.Settings settings;
    private SelectorLoop[] loops = new SelectorLoop[0];
    /** Shutting down: no connection accepted, every request answered 503 ({@link DhtServer#handleRequest}). */
    volatile boolean draining;
    /** Leaving (drain.Drain): not ready, and every answer to a client ends its connection. */
    volatile boolean leaving;

    ConnectionServer(DhtServer.Settings settings) throws java.io.IOException {
        super(serverConfig(settings));
        this.settings = settings;
    }

    private static HttpServerConfig serverConfig(DhtServer.Settings s) {
        AcceptorConfig acceptor = new AcceptorConfig();
        acceptor.address = "0.0.0.0";
        acceptor.port = s.port();
        // No SO_REUSEPORT (SO_REUSEADDR stays: a restart binds at once): with it, a second node started on a port a
        // live node holds (a draining one, a second `make run`) bound too, and the kernel split the connections
        // between the two processes, a member port's included. Now the second one fails to start.
        acceptor.reusePort = false;
        acceptor.backlog = 1024;
        AcceptorConfig member = new AcceptorConfig();
        member.address = s.memberAddress();
        member.port = s.memberPort();
        member.reusePort = false;
        member.backlog = 1024;
        HttpServerConfig config = new HttpServerConfig();
        config.acceptors = new AcceptorConfig[] {acceptor, member};
        if (s.metricsPort() > 0) {
            AcceptorConfig metrics = new AcceptorConfig();
            metrics.address = "0.0.0.0";
            metrics.port = s.metricsPort();
            metrics.reusePort = false;
            metrics.backlog = 128;
            config.acceptors = new AcceptorConfig[] {acceptor, member, metrics};
        }
        config.selectors = s.selectors();
        config.keepAlive = (int) Math.min(Integer.MAX_VALUE, s.idleTimeoutMillis());
        config.closeSessions = true;
        config.maxWorkers = 0; // requests run on our own bounded pool, not one-nio's
        config.selectorThreadNameFormat = "dht-selector-%d";
        return config;
    }

    int maxBody() {
        return settings.maxBody();
    }

    long sendTimeoutMillis() {
        return settings.sendTimeoutMillis();
    }

    public int port() {
        return port;
    }

    public int memberPort() {
        return settings.memberPort();
    }

    /** A TLS handshake (or record) of this plane failed: counted and logged by that port's TLS. */
    void tlsFailed(Plane plane, String peer, Throwable e) {
        if (plane == Plane.MEMBER && settings.memberTls() != null) {
            settings.memberTls().handshakeFailed(peer, e);
        } else if (plane == Plane.CLIENT && settings.clientTls() != null) {
            settings.clientTls().handshakeFailed(peer, e);
        }
    }

    /** The generation in force of this plane's TLS material (0 without TLS). */
    long tlsGeneration(Plane plane) {
        return switch (plane) {
            case MEMBER ->
                settings.memberTls() == null ? 0 : settings.memberTls().generation();
            case CLIENT ->
                settings.clientTls() == null ? 0 : settings.clientTls().generation();
            case METRICS -> 0;
        };
    }

    /**
     * Starts serving. one-nio's selector threads are replaced by {@link SelectorLoop}s over the same selectors
     * (one-nio creates its threads but they are never started): the same loop plus work done at the end of each
     * pass, which is how a pass's writes share one WAL write and its peer requests one socket write.
     */
    @Override
    public synchronized void start() {
        loops = new SelectorLoop[selectors.length];
        for (int i = 0; i < selectors.length; i++) {
            loops[i] = new SelectorLoop(selectors[i].selector, "dht-selector-" + i);
            loops[i].start();
        }
        acceptor.start();
        try {
            acceptor.syncStart();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        cleanup.start();
        Management.registerMXBean(this, "one.nio.server:type=Server,port=" + port);
    }

    /** one-nio's stop closes the selectors; each loop then finishes its last pass and ends. */
    @Override
    public synchronized void stop() {
        super.stop();
        for (SelectorLoop loop : loops) {
            try {
                loop.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Passes of every selector loop so far, for metrics. */
    public long selectorPasses() {
        long passes = 0;
        for (SelectorLoop loop : loops) {
            passes += loop.passes();
        }
        return passes;
    }

    @Override
    public HttpSession createSession(Socket socket) throws RejectedSessionException {
        // one-nio sets TCP_NODELAY on its listening socket, which accepted sockets inherit, but on JDK NIO sockets
        // (the node's: one-nio's native ones are off) that option is lost; then Nagle held back every answer written
        // while an earlier one to the same connection was unacknowledged, until the peer's delayed ACK (~40 ms):
        // pipelined node-to-node answers stalled (docs/node.md, "Defaults").
        socket.setNoDelay(true);
        Accepted a = Accepted.of(
                socket, settings.memberPort(), settings.metricsPort(), settings.memberTls(), settings.clientTls());
        return new DhtSession(a.socket(), this, a.plane(), a.loopbackPeer());
    }

    /** The sockets of the connections open right now (tests, diagnostics: see createSession). */
    public List<Socket> openSockets() {
        List<Socket> sockets = new ArrayList<>();
        for (SelectorThread t : selectors) {
            for (Session session : t.selector) {
                sockets.add(session.socket());
            }
        }
        return sockets;
    }

    /**
     * The drain before a graceful stop (drain.Drain): from now on {@code /v0/status} answers 503, so that probes and
     * balancers take this member out, and every answer to a client carries {@code Connection: close} and ends its
     * connection, so that the client's next request opens one elsewhere. Requests are still served in full and
     * new connections still accepted (a balancer may not have heard yet). Connections of the member plane keep
     * going: a member's in-flight calls are never cut by it.
     */
    public void leave() {
        leaving = true;
    }

    public boolean leaving() {
        return leaving;
    }

    /** Stops accepting connections; established ones keep being served (graceful shutdown, step 1). */
    public void stopAccepting() {
        draining = true;
        acceptor.shutdown();
    }

    public boolean draining() {
        return draining;
    }
}
