package dev.dht.node.peer;

import dev.dht.node.tls.TlsConnection;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A peer connection's state and its end, apart from the requests on it ({@link PeerConnection}): calls past their
 * deadline, a connection gone silent, idle or made with replaced TLS material closed (expire), closing, and failing
 * or retrying the calls of a break. A superclass, as http's ConnectionSession is, so that the request path reads
 * these fields directly. Every mutable field is guarded by {@code this}; callbacks run outside the lock.
 */
abstract class PeerLink {
    /**
     * How long a TLS handshake may hear nothing from the peer before the connection is dropped (at least the connect
     * timeout). Not the connect timeout itself: a handshake is CPU work at both ends (key exchange, signatures,
     * certificate checks, on the I/O and selector threads), which on a cold JVM, with every member opening its
     * connections at once, took seconds; dropped at the connect timeout, each connection started over and none got
     * through (see expire).
     */
    private static final long HANDSHAKE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    final PeerClient client;
    final PeerClient.Peer peer;
    /** Calls sent and not answered, by call number, oldest first (deadlines are checked from the head). */
    final LinkedHashMap<Long, PeerCall> inflight = new LinkedHashMap<>();

    SocketChannel channel;
    /** The member port's TLS over the channel, or null for plaintext (guarded by this, like out). */
    TlsConnection tls;
    /** The TLS material's generation this connection was made with (0: plaintext): see PeerClient.pick. */
    final long tlsGeneration;

    SelectionKey key;
    boolean connected;
    boolean closed;
    /** inflight.size(), readable without the lock for picking the least busy connection. */
    volatile int pending;

    final long createdNanos = System.nanoTime();
    /** Last request written or answer read: an idle connection is closed before the peer's idle timeout hits. */
    long lastActivityNanos = createdNanos;
    /** Whether an answer came back on this connection: a failure then may be a keep-alive race (see failAll). */
    boolean answeredBefore;
    /**
     * When the connection last showed the peer alive (connected, an answer read, or under TLS any record read, the
     * handshake's included): see expire.
     */
    long lastHeardNanos = createdNanos;

    PeerLink(PeerClient client, PeerClient.Peer peer, long tlsGeneration) {
        this.client = client;
        this.peer = peer;
        this.tlsGeneration = tlsGeneration;
    }

    /**
     * I/O thread, periodically: calls past their deadline fail as timeouts (each alone: answers may come in any
     * order, so a late one holds nothing up); a connection that sat idle is closed. So is one that did not
     * connect within the connect timeout, calls or not, and a connected one whose calls time out while nothing at
     * all came back for longer than the connect timeout: the peer is gone without a word (in Kubernetes a
     * replaced pod's old IP answers nothing, not even a refusal, and a connect there hangs for minutes). Kept,
     * such a connection took every new call to the peer and timed it out; closed, the next call opens a new
     * connection and resolves the peer's name again.
     *
     * <p>A connection in its TLS handshake has connected: the peer is there. Its calls still fail at their
     * deadlines, but it is dropped only when the handshake heard nothing for {@link #HANDSHAKE_TIMEOUT_NANOS}.
     * Dropped at the connect timeout (the request timeout, 1 s by default), a cold cluster whose handshakes took
     * longer threw each one away and started another, from scratch, on a new connection: replicas unreachable
     * for seconds, clients answered 504.
     */
    void expire(long nowNanos) {
        List<PeerCall> late = null;
        List<PeerCall> failed = null;
        String closeReason = "connection to " + peer.url + " closed";
        synchronized (this) {
            Iterator<PeerCall> oldest = inflight.values().iterator();
            while (oldest.hasNext()) {
                PeerCall call = oldest.next();
                if (nowNanos - call.deadlineNanos < 0) {
                    break; // later calls were sent later; a deadline earlier than the head's is rare and waits
                }
                oldest.remove();
                if (late == null) {
                    late = new ArrayList<>();
                }
                late.add(call);
            }
            pending = inflight.size();
            boolean idle = inflight.isEmpty();
            boolean handshaking = connected && tls != null && tls.handshaking();
            long handshakeTimeout = Math.max(HANDSHAKE_TIMEOUT_NANOS, client.connectTimeoutNanos());
            if (!connected && !closed && nowNanos - createdNanos > client.connectTimeoutNanos()) {
                closeReason = "cannot connect to " + peer.url + " within the connect timeout";
                failed = closeLocked();
            } else if (handshaking && nowNanos - lastHeardNanos > handshakeTimeout) {
                closeReason = "TLS handshake with " + peer.url + ": nothing heard for "
                        + TimeUnit.NANOSECONDS.toSeconds(handshakeTimeout) + " s, closed";
                failed = closeLocked();
            } else if (late != null
                    && connected
                    && !handshaking
                    && nowNanos - lastHeardNanos > client.connectTimeoutNanos()) {
                closeReason = "no answer at all from " + peer.url + " on this connection: closed";
                failed = closeLocked();
            } else if (idle && tlsGeneration != client.tlsGeneration()) {
                failed = closeLocked(); // made with TLS material replaced since, and drained: reconnect under the new
            } else if (idle && connected && nowNanos - lastActivityNanos > client.idleNanos()) {
                // Close it before the peer's idle timeout does: a request written into a connection the peer is
                // closing at that moment would fail for nothing.
                failed = closeLocked();
            }
        }
        if (late != null) {
            for (PeerCall call : late) {
                call.fail(true, "no answer from " + peer.url + " within the request timeout");
            }
        }
        if (failed != null) {
            failAll(failed, closeReason);
        }
    }

    void close(String reason) {
        List<PeerCall> failed;
        synchronized (this) {
            failed = closeLocked();
        }
        failAll(failed, reason);
    }

    synchronized boolean isClosed() {
        return closed;
    }

    /** The calls of a connection that broke; a reused one's calls may be retried (see failAll). */
    private boolean retryable;

    final List<PeerCall> closeLocked() {
        if (closed) {
            return List.of();
        }
        closed = true;
        retryable = answeredBefore;
        connected = false;
        peer.remove(this);
        if (key != null) {
            key.cancel();
        }
        if (tls != null) {
            tls.closeQuietly();
        }
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing left to release
            }
        }
        List<PeerCall> calls = new ArrayList<>(inflight.values());
        inflight.clear();
        pending = 0;
        return calls;
    }

    /**
     * Fails the calls of a connection that broke. If the connection had answered before, the break may be the
     * peer closing it just as these requests went out (a keep-alive race), so each call still inside its deadline
     * is sent once more on another connection: every internal request is idempotent (reads, and writes that carry
     * their timestamp), so a repeat is harmless.
     */
    final void failAll(List<PeerCall> calls, String reason) {
        long now = System.nanoTime();
        boolean retry;
        synchronized (this) {
            retry = retryable;
        }
        for (PeerCall call : calls) {
            if (retry && !call.retried && now - call.deadlineNanos < 0) {
                call.retried = true;
                client.resend(peer, call);
            } else {
                call.failAt(now, reason);
            }
        }
    }
}
