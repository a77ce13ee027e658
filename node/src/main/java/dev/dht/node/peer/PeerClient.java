package dev.dht.node.peer;

import dev.dht.node.plane.MemberPlane;
import dev.dht.node.threads.DaemonThreads;
import dev.dht.node.tls.MemberTls;
import java.io.IOException;
import java.net.URI;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The asynchronous client nodes use to call each other: a lean HTTP/1.1 client on one NIO selector thread with a
 * small pool of keep-alive connections per peer and pipelined requests. No thread waits for an answer: callers
 * write their request and return; the I/O thread parses answers and runs the callbacks.
 *
 * <p>Everything is bounded: at most {@code maxConnections} connections per peer, at most {@code maxPipeline}
 * requests queued on one connection (beyond that a call fails at once: the peer is saturated), and every call has
 * a deadline after which it fails as a timeout, alone: answers are numbered and may come back in any order, so
 * the connection stays (see PeerConnection). A refused connection fails its calls at once; a connection that does
 * not connect within the connect timeout, or on which calls time out while the peer sends nothing at all, is
 * closed, and the next call opens a new one (resolving the peer's name again).
 *
 * <p>Why not java.net.http.HttpClient: it costs a selector hand-off plus executor hops and several objects per
 * call; measured on this machine this client does about 2x the calls per CPU second (docs/cluster.md).
 */
public final class PeerClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PeerClient.class);
    /** How often the I/O thread looks for calls past their deadline. */
    private static final long SCAN_MILLIS = 5;

    /** Outcome counters of remote calls (dht_replica_calls_total). */
    public static final class Outcomes {
        final LongAdder ok = new LongAdder();
        final LongAdder error = new LongAdder();
        final LongAdder timeout = new LongAdder();

        public long ok() {
            return ok.sum();
        }

        public long error() {
            return error.sum();
        }

        public long timeout() {
            return timeout.sum();
        }

        /** Sees every answer before its callback (the topology manager learns newer states this way). */
        private volatile AnswerObserver observer;

        void observe(String peer, PeerResponse response) {
            AnswerObserver o = observer;
            if (o != null) {
                o.observed(peer, response);
            }
        }
    }

    /** Sees every answer of every call, on the I/O thread, before the call's callback; must not block. */
    public interface AnswerObserver {
        void observed(String peer, PeerResponse response);
    }

    /** Installs the observer of every answer (one; the node's topology manager). */
    public void observeAnswers(AnswerObserver observer) {
        outcomes.observer = observer;
    }

    /** Connection pool of one peer: named by its member URL, reached on its member port. */
    static final class Peer {
        final String url;
        final String host;
        final int port;
        final String hostHeader;
        final List<PeerConnection> connections = new CopyOnWriteArrayList<>();

        Peer(String url, MemberPlane plane) {
            this.url = url;
            URI uri = URI.create(url);
            this.host = uri.getHost();
            this.port = plane.port(uri.getPort() < 0 ? 80 : uri.getPort());
            this.hostHeader = host + ":" + port;
        }

        void remove(PeerLink c) {
            connections.remove(c);
        }
    }

    private final MemberPlane plane;
    private final int maxConnections;
    private final int maxPipeline;
    private final long connectTimeoutNanos;
    private final long idleNanos;
    private final Selector selector;
    private final Thread ioThread;
    private final ConcurrentHashMap<String, Peer> peers = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<PeerConnection> toOpen = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    private final ConcurrentLinkedQueue<PeerConnection> toFlush = new ConcurrentLinkedQueue<>();
    /** Calls with a slow mark, earliest mark first (callers give each peer its own delay). */
    private final PriorityBlockingQueue<PeerCall> watched =
            new PriorityBlockingQueue<>(64, (a, b) -> Long.signum(a.slowNanos - b.slowNanos));
    /** The I/O thread is in (or about to enter) select: nothing will write queued connections unless woken. */
    private volatile boolean ioIdle = true;

    private final Outcomes outcomes = new Outcomes();
    private volatile boolean closed;

    /**
     * @param maxConnections per peer
     * @param maxPipeline    requests queued on one connection
     * @param connectTimeout a connection that has not connected by then is dropped (its calls fail), and so is a
     *                       connected one on which calls time out while nothing came back for this long
     * @param idle           a connection unused for this long is closed (keep it below the peers' idle timeout)
     */
    public PeerClient(int maxConnections, int maxPipeline, Duration connectTimeout, Duration idle) {
        this(MemberPlane.DIRECT, maxConnections, maxPipeline, connectTimeout, idle);
    }

    /** @param plane where a member's member port is (every call goes there, never to its client port) */
    public PeerClient(MemberPlane plane, int maxConnections, int maxPipeline, Duration connectTimeout, Duration idle) {
        this.plane = plane;
        this.maxConnections = maxConnections;
        this.maxPipeline = maxPipeline;
        this.connectTimeoutNanos = connectTimeout.toNanos();
        this.idleNanos = idle.toNanos();
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a selector", e);
        }
        this.ioThread = DaemonThreads.of("dht-peer-io", this::loop);
        ioThread.start();
    }

    public Outcomes outcomes() {
        return outcomes;
    }

    /** The member port's mutual TLS, or null for plaintext. */
    MemberTls tls() {
        return plane.tls();
    }

    /** The TLS generation new calls use (0: plaintext): connections of an older one get no new calls. */
    long tlsGeneration() {
        MemberTls tls = plane.tls();
        return tls == null ? 0 : tls.generation();
    }

    long connectTimeoutNanos() {
        return connectTimeoutNanos;
    }

    long idleNanos() {
        return idleNanos;
    }

    /**
     * Sends the request to the peer (a member base URL, http://host:port: its member port) and calls back exactly once: with the
     * answer, or a failure by {@code deadlineNanos} (System.nanoTime() scale) at the latest. Never blocks.
     */
    public void send(String peerUrl, PeerRequest request, long deadlineNanos, PeerCallback callback) {
        send(new PeerCall(peerUrl, request, deadlineNanos, 0, callback, outcomes), false);
    }

    /**
     * As {@link #send(String, PeerRequest, long, PeerCallback)}, and if no answer came by {@code slowNanos} the
     * callback's {@link PeerCallback#slow()} runs once (within a scan period of it): a reader that asked only
     * some replicas asks the others then, instead of waiting for the deadline of a peer that went silent. The mark
     * ({@code slowNanos}, System.nanoTime() scale) may differ from call to call.
     */
    public void send(String peerUrl, PeerRequest request, long deadlineNanos, long slowNanos, PeerCallback callback) {
        send(new PeerCall(peerUrl, request, deadlineNanos, slowNanos, callback, outcomes), true);
    }

    private void send(PeerCall call, boolean watch) {
        if (closed) {
            call.fail(false, "client closed");
            return;
        }
        if (watch) {
            watched.add(call);
        }
        enqueue(peers.computeIfAbsent(call.peer, url -> new Peer(url, plane)), call);
    }

    /** A call whose connection broke, sent once more (see PeerLink#failAll). */
    void resend(Peer peer, PeerCall call) {
        if (closed) {
            call.fail(false, "client closed");
            return;
        }
        enqueue(peer, call);
    }

    private void enqueue(Peer peer, PeerCall call) {
        String peerUrl = peer.url;
        for (int attempt = 0; attempt < 3; attempt++) {
            PeerConnection c = pick(peer);
            if (c == null) {
                call.fail(
                        false,
                        peerUrl + " saturated: " + maxConnections + " connections x " + maxPipeline
                                + " requests in flight");
                return;
            }
            if (c.enqueue(call)) {
                return;
            }
        }
        call.fail(false, "no usable connection to " + peerUrl);
    }

    /**
     * A connection whose coalesced write is queued (this request joins that write), else an idle one, else a new
     * one while under the limit, else the least busy one with room. Under TLS, while a connection to the peer is
     * still in its handshake no other is opened: the call goes to the least busy connection with room, that one
     * included (it is sent when the handshake is done). A handshake is CPU work at both ends; when every member
     * of a cold cluster opened all its connections at once, every handshake was slow, and calls waited for them
     * past their deadlines.
     */
    private PeerConnection pick(Peer peer) {
        PeerConnection best = null;
        PeerConnection idle = null;
        boolean opening = false;
        int bestPending = Integer.MAX_VALUE;
        long generation = tlsGeneration();
        int current = 0;
        for (PeerConnection c : peer.connections) {
            if (c.tlsGeneration != generation) {
                continue; // made with TLS material replaced since: it drains and closes (PeerLink.expire)
            }
            current++;
            int p = c.pending;
            if (c.flushQueued && p < maxPipeline) {
                return c;
            }
            opening |= c.handshakePending;
            if (p == 0) {
                if (idle == null) {
                    idle = c;
                }
                continue;
            }
            if (p < bestPending) {
                best = c;
                bestPending = p;
            }
        }
        if (idle != null) {
            return idle;
        }
        if (current < maxConnections && !opening) {
            synchronized (peer) {
                // stale connections (older TLS material) still drain: at most as many again
                if (current(peer, generation) < maxConnections && peer.connections.size() < 2 * maxConnections) {
                    PeerConnection c = new PeerConnection(this, peer, maxPipeline);
                    peer.connections.add(c);
                    toOpen.add(c);
                    wakeup();
                    return c;
                }
            }
        }
        return bestPending < maxPipeline ? best : null;
    }

    private static int current(Peer peer, long generation) {
        int n = 0;
        for (PeerConnection c : peer.connections) {
            if (c.tlsGeneration == generation) {
                n++;
            }
        }
        return n;
    }

    void wakeup() {
        if (wakeupPending.compareAndSet(false, true)) {
            selector.wakeup();
        }
    }

    /** Whether the I/O thread is awake and will write queued connections before it sleeps (see queueFlush). */
    boolean ioThreadBusy() {
        return !ioIdle;
    }

    /** A connection with buffered requests for the I/O thread to write before it sleeps again. */
    void queueFlush(PeerConnection c) {
        toFlush.add(c);
    }

    private void flushQueued() {
        PeerConnection c;
        while ((c = toFlush.poll()) != null) {
            c.writeQueued();
        }
    }

    private void loop() {
        long lastScan = System.nanoTime();
        try {
            while (!closed) {
                // Idle from here (callers write their requests themselves) until select returns; what was queued
                // before callers could see the flag is written now. See PeerConnection#enqueue for the handshake.
                ioIdle = true;
                flushQueued();
                selector.select(SCAN_MILLIS);
                ioIdle = false;
                wakeupPending.set(false);
                PeerConnection c;
                while ((c = toOpen.poll()) != null) {
                    c.open(selector);
                }
                var keys = selector.selectedKeys();
                for (SelectionKey k : keys) {
                    if (k.isValid()) {
                        ((PeerConnection) k.attachment()).ready(k);
                    }
                }
                keys.clear();
                long now = System.nanoTime();
                if (now - lastScan >= SCAN_MILLIS * 1_000_000L) {
                    lastScan = now;
                    markSlowCalls(now);
                    for (Peer peer : peers.values()) {
                        for (PeerConnection pc : peer.connections) {
                            pc.expire(now);
                        }
                    }
                }
            }
        } catch (ClosedSelectorException e) {
            // closing
        } catch (IOException | RuntimeException e) {
            log.error("peer client I/O loop failed: {}", e.toString(), e);
        } finally {
            closeAll("client closed");
        }
    }

    /** Tells the watched calls whose slow mark passed; answered ones just leave the list. */
    private void markSlowCalls(long now) {
        PeerCall call;
        while ((call = watched.peek()) != null && now - call.slowNanos >= 0) {
            watched.poll();
            call.markSlow();
        }
    }

    private void closeAll(String reason) {
        PeerConnection c;
        while ((c = toOpen.poll()) != null) {
            c.close(reason);
        }
        for (Peer peer : peers.values()) {
            for (PeerConnection pc : peer.connections) {
                pc.close(reason);
            }
        }
    }

    /** Connections currently open or opening to the peer (tests, metrics). */
    public int connections(String peerUrl) {
        Peer p = peers.get(peerUrl);
        return p == null ? 0 : p.connections.size();
    }

    /** Fails every call still in flight ("client closed") and closes the connections and the I/O thread. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        selector.wakeup();
        try {
            ioThread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeAll("client closed");
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
