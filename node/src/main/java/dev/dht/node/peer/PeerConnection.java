package dev.dht.node.peer;

import dev.dht.node.loop.SelectorLoop;
import dev.dht.node.tls.MemberTls;
import dev.dht.node.tls.TlsConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * One keep-alive HTTP/1.1 connection to a peer with pipelined requests: callers encode their request into the
 * connection's buffer (no hand-off to the I/O thread), the I/O thread reads the answers and completes the calls.
 * Every request carries a call number ({@code X-Dht-Call}) that its answer echoes, and the peer may answer out of
 * order: a request the peer serves from disk, on a worker, does not hold up the answers behind it. So a call past
 * its deadline fails alone (its late answer is dropped); the connection stays. Every mutable field is guarded by
 * {@code this}; callbacks run outside the lock. Deadlines, liveness and closing: {@link PeerLink}.
 */
final class PeerConnection extends PeerLink {
    static final int OUT_SIZE = 64 * 1024; // package-visible for the scale simulation's memory model
    static final int IN_SIZE = 64 * 1024;

    private final int maxPipeline;

    private long nextCall;
    private final ResponseParser parser = new ResponseParser();
    private final ByteBuffer in = ByteBuffer.allocate(IN_SIZE);
    /**
     * Requests encoded, not yet written. Direct for plaintext (the socket write copies nothing); on the heap under
     * TLS, where it is the engine's input: the JDK's AES-GCM works on arrays in place, but with a direct input or
     * output buffer it copies through arrays it allocates for every record.
     */
    private ByteBuffer out;

    private final RequestEncoder encoder;
    /**
     * Buffered requests wait for a coalesced write: at the end of a selector pass, or by the I/O thread before it
     * sleeps (readable without the lock by pick(), which prefers such a connection).
     */
    volatile boolean flushQueued;
    /**
     * A TLS connection not through its handshake yet (connecting included): PeerClient.pick opens no other
     * connection to the peer meanwhile (readable without the lock).
     */
    volatile boolean handshakePending;

    private final SelectorLoop.Task flushTask = this::writeQueued;

    PeerConnection(PeerClient client, PeerClient.Peer peer, int maxPipeline) {
        this(client, peer, maxPipeline, client.tls());
    }

    private PeerConnection(PeerClient client, PeerClient.Peer peer, int maxPipeline, MemberTls memberTls) {
        super(client, peer, memberTls == null ? 0 : memberTls.generation());
        this.maxPipeline = maxPipeline;
        this.encoder = new RequestEncoder(peer.hostHeader);
        this.handshakePending = memberTls != null;
        this.out = memberTls == null ? ByteBuffer.allocateDirect(OUT_SIZE) : ByteBuffer.allocate(OUT_SIZE);
    }

    /** Queues the call; false if this connection is closed or its pipeline is full (try another). */
    boolean enqueue(PeerCall call) {
        List<PeerCall> failed = null;
        boolean viaIoThread = false;
        synchronized (this) {
            if (closed || inflight.size() >= maxPipeline) {
                return false;
            }
            long number = nextCall++;
            out = encoder.encode(call.request, number, out);
            inflight.put(number, call);
            lastActivityNanos = System.nanoTime();
            pending = inflight.size();
            if (connected && !flushQueued) { // else it joins a write already queued
                SelectorLoop loop = SelectorLoop.current();
                if (loop != null) {
                    // A selector thread (a coordinator starting requests): one write per connection at the end
                    // of its pass, for all the requests of the pass.
                    flushQueued = true;
                    loop.sendAtEndOfPass(flushTask);
                } else if (client.ioThreadBusy()) {
                    // The I/O thread is awake (answers are coming in) and writes every queued connection before
                    // it sleeps again, so requests that arrive meanwhile share one write(2).
                    flushQueued = true;
                    client.queueFlush(this);
                    viaIoThread = true;
                } else {
                    failed = flushOrClose();
                }
            }
        }
        if (viaIoThread && !client.ioThreadBusy()) {
            // The I/O thread went to sleep between our check and the queueing: it may not have seen this
            // connection, so write it here (whichever of the two comes second finds nothing left to write).
            writeQueued();
        } else if (failed != null) {
            failAll(failed, "write to " + peer.url + " failed");
        }
        return true;
    }

    /** Writes what is buffered, if a coalesced write is still queued; a write that breaks fails its calls. */
    void writeQueued() {
        List<PeerCall> failed;
        synchronized (this) {
            failed = flushQueued ? flushOrClose() : null;
        }
        if (failed != null) {
            failAll(failed, "write to " + peer.url + " failed");
        }
    }

    private List<PeerCall> flushOrClose() {
        flushQueued = false;
        if (closed || !connected) {
            return null; // connecting: connectedLocked() writes it; closed: the calls were failed already
        }
        try {
            flushLocked();
            return null;
        } catch (IOException e) {
            return closeLocked();
        }
    }

    /** I/O thread: opens the socket. Connection refused on loopback is reported at once by finishConnect. */
    void open(Selector selector) {
        List<PeerCall> failed = null;
        String reason = null;
        synchronized (this) {
            if (closed) {
                return;
            }
            try {
                channel = SocketChannel.open();
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                boolean done = channel.connect(new InetSocketAddress(peer.host, peer.port));
                key = channel.register(selector, done ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, this);
                if (done) {
                    connectedLocked();
                }
            } catch (IOException | RuntimeException e) {
                reason = "cannot connect to " + peer.url + ": " + e;
                failed = closeLocked();
            }
        }
        if (failed != null) {
            failAll(failed, reason);
        }
    }

    /** I/O thread: the selector reported readiness. */
    void ready(SelectionKey k) {
        List<PeerCall> failed = null;
        String reason = null;
        try {
            if (k.isConnectable()) {
                synchronized (this) {
                    channel.finishConnect();
                    connectedLocked();
                }
            }
            if (k.isValid() && k.isWritable()) {
                synchronized (this) {
                    flushLocked();
                }
            }
            if (k.isValid() && k.isReadable()) {
                read();
            }
        } catch (IOException | RuntimeException e) {
            reason = peer.url + ": " + e.getMessage();
            if (e instanceof SSLException && client.tls() != null) {
                client.tls().handshakeFailed(peer.url, e);
            }
            synchronized (this) {
                failed = closeLocked();
            }
        }
        if (failed != null) {
            failAll(failed, reason);
        }
    }

    private void connectedLocked() throws IOException {
        connected = true;
        lastHeardNanos = System.nanoTime();
        MemberTls memberTls = client.tls();
        if (memberTls != null) {
            // The handshake starts with the first write (the ClientHello); requests queued meanwhile wait in out
            // until it is done (flushLocked after each read).
            tls = new TlsConnection(memberTls.clientEngine(peer.host, peer.port), channel);
        }
        flushLocked();
    }

    private void read() throws IOException {
        if (tls == null) {
            if (channel.read(in) < 0) {
                throw new IOException("connection closed by the peer");
            }
            parse();
            return;
        }
        // TLS: read on while records already read wait (no readiness would be signalled for them)
        for (int round = 0; round < 64; round++) {
            synchronized (this) {
                long before = tls.received();
                int n = tls.read(in);
                if (n == TlsConnection.EOF) {
                    throw new IOException("connection closed by the peer");
                }
                if (tls.received() != before) {
                    lastHeardNanos = System.nanoTime(); // handshake records too: the peer is there
                }
                if (handshakePending && !tls.handshaking()) {
                    handshakePending = false;
                }
                if (n == TlsConnection.WANT_WRITE || out.position() > 0 || tls.pendingOutput()) {
                    flushLocked(); // handshake bytes, or requests that waited for the handshake to finish
                }
            }
            parse();
            boolean more;
            synchronized (this) {
                more = tls.bufferedInput();
            }
            if (!more) {
                return;
            }
        }
    }

    /** Answers in {@code in}: each completes its call. */
    private void parse() throws IOException {
        in.flip();
        try {
            while (in.hasRemaining()) {
                PeerResponse response = parser.parse(in);
                if (response == null) {
                    break;
                }
                long number = parser.callNumber();
                if (number < 0) {
                    throw new IOException("answer without X-Dht-Call from " + peer.url);
                }
                PeerCall call;
                synchronized (this) {
                    call = inflight.remove(number);
                    pending = inflight.size();
                    answeredBefore = true;
                    lastActivityNanos = System.nanoTime();
                    lastHeardNanos = lastActivityNanos;
                }
                if (call != null) { // else it failed at its deadline already: the late answer is dropped
                    call.complete(response);
                }
                if (parser.closeRequested()) {
                    throw new IOException("peer closed the connection (Connection: close)");
                }
            }
        } finally {
            in.compact();
        }
    }

    /** Writes what is buffered; asks for OP_WRITE only when the socket could not take all of it. */
    private void flushLocked() throws IOException {
        out.flip();
        try {
            if (tls != null) {
                tls.write(out); // during the handshake it takes nothing: the rest goes after the next read
            } else {
                while (out.hasRemaining()) {
                    if (channel.write(out) == 0) {
                        break;
                    }
                }
            }
        } finally {
            out.compact();
        }
        boolean waiting = tls != null ? tls.pendingOutput() : out.position() > 0;
        int ops = waiting ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ;
        if (key.interestOps() != ops) {
            key.interestOps(ops);
            if ((ops & SelectionKey.OP_WRITE) != 0) {
                client.wakeup();
            }
        }
    }
}
