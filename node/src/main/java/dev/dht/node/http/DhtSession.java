package dev.dht.node.http;

import dev.dht.node.plane.Plane;
import java.io.IOException;
import java.util.ArrayDeque;
import one.nio.http.Request;
import one.nio.http.Response;
import one.nio.net.Socket;

/**
 * one-nio's HTTP session with what the node adds, for the requests on a connection (the connection itself, its
 * plane, TLS, body limit and liveness, is {@link ConnectionSession}'s; corked answers are {@link CorkedSession}'s):
 * answers in request order, chunked responses whose body is produced lazily, error answers (413 with a reason) that
 * end the connection, and two things for pipelined connections (every node-to-node connection is one):
 *
 * <ul>
 *   <li><b>Requests that share a pass.</b> one-nio starts a connection's next request only after the previous one
 *       was answered. Here a PUT or DELETE of /v0/entity also starts while every earlier unanswered request of the
 *       connection is such a write still on the selector path: they all join the pass's write group (one WAL write)
 *       and are answered at its end. A GET of /v0/entity starts while every earlier one is such a read (reads
 *       commute, wherever they run). Anything else, and any change of kind, waits for the answers before it, as in
 *       one-nio: a read always sees the writes sent before it on its connection. Answers go out in request
 *       order.</li>
 *   <li><b>Numbered calls.</b> A request on the member port carrying {@code X-Dht-Call} (every node-to-node
 *       request does) starts at once and is answered as soon as it is ready, with the number echoed: the calling
 *       node matches answers by number, so a read served from disk on a worker holds up nothing behind it.</li>
 * </ul>
 *
 * Every field is guarded by this session's monitor (one-nio's process() and send paths hold it).
 */
final class DhtSession extends ConnectionSession {
    /** one-nio's own limit on pipelined requests per connection. */
    private static final int MAX_PIPELINE = 256;

    static final String CALL_HEADER = Headers.CALL + ":";

    /** Started and not yet written, in request order. */
    private final ArrayDeque<Slot> started = new ArrayDeque<>();
    /** Parsed and not yet started (they wait for the answers before them). */
    private final ArrayDeque<Request> waiting = new ArrayDeque<>();
    /** Started numbered calls (X-Dht-Call) not yet answered: they keep no order. */
    private int calls;
    /** The slot whose request is being started right now (its handler may answer through sendResponse). */
    private Slot starting;
    /** The client closed its side: close ours once everything is answered. */
    private boolean inputClosed;
    /** An error answer ends the connection: requests parsed after it are dropped. */
    private boolean ending;

    DhtSession(Socket socket, ConnectionServer server, Plane plane, boolean loopbackPeer) {
        super(socket, server, plane, loopbackPeer);
    }

    // ---- request order ---------------------------------------------------------------------------------------

    /** one-nio parsed a request (selector thread, under the monitor). */
    @Override
    protected void handleParsedRequest() throws IOException {
        Request request = parsing;
        parsing = null;
        requestBodyOffset = 0;
        if (ending) {
            return;
        }
        if (started.size() + waiting.size() + calls >= MAX_PIPELINE) {
            throw new IOException("Pipeline length exceeded");
        }
        RequestKind kind = RequestKind.of(request);
        Slot slot = new Slot(request, kind, plane == Plane.MEMBER);
        if (slot.call != null) {
            // A numbered internal call: the caller matches answers by number, so it starts at once and is answered
            // as soon as it is ready, whatever is before or after it.
            calls++;
            startNow(slot);
        } else if (waiting.isEmpty() && mayStart(kind)) {
            start(slot);
        } else {
            waiting.add(request);
        }
    }

    private boolean mayStart(RequestKind kind) {
        for (Slot s : started) { // a handful at most: pipelines are short
            if (!s.admits(kind)) {
                return false;
            }
        }
        return true;
    }

    private void start(Slot slot) throws IOException {
        started.add(slot);
        startNow(slot);
    }

    private void startNow(Slot slot) throws IOException {
        handling = slot.request; // one-nio's "a request is in progress" (checkStatus, socket close)
        Slot outer = starting;
        starting = slot;
        try {
            server.handleRequest(slot.request, this);
        } finally {
            starting = outer;
        }
    }

    /** The slot of the request being started (DhtServer binds its responder to it). */
    Slot startingSlot() {
        return starting;
    }

    /** The slot's request goes to a worker: later writes must not overtake it. */
    synchronized void toWorker(Slot slot) {
        slot.inline = false;
    }

    /** Answers the slot's request; written once every earlier request of the connection is (a numbered call: now). */
    synchronized void answer(Slot slot, Response response) throws IOException {
        if (slot.answer != null) {
            throw new IllegalStateException("request answered twice");
        }
        boolean keepAlive = keepAlive(slot.request) && !slot.close && !closesForLeaving(slot);
        response.addHeader(keepAlive ? "Connection: Keep-Alive" : "Connection: close");
        if (slot.call != null) {
            response.addHeader(CALL_HEADER + " " + slot.call);
        }
        slot.answer = response.toBytes(slot.request.getMethod() != Request.METHOD_HEAD);
        slot.close = !keepAlive;
        if (slot.call != null && !slot.close) {
            calls--;
            server.incRequestsProcessed();
            emit(slot.answer);
            afterAnswers();
            return;
        }
        if (slot.call != null) {
            calls--;
            started.addFirst(slot); // a closing answer to a call: written next, then the connection ends
        }
        drain();
    }

    /** Answers with a head and a body that writes itself as the socket drains (a range stream). */
    synchronized void answerChunked(Slot slot, Response head, QueueItem body) throws IOException {
        if (slot.answer != null) {
            QueueItem.releaseChain(body);
            throw new IllegalStateException("request answered twice");
        }
        boolean keepAlive = keepAlive(slot.request) && !closesForLeaving(slot);
        head.addHeader(keepAlive ? "Connection: Keep-Alive" : "Connection: close");
        slot.answer = head.toBytes(false);
        slot.body = body;
        slot.close = !keepAlive;
        drain();
    }

    /**
     * While the member drains, a client's answer ends its connection (the member plane's do not); so does one on a
     * TLS connection made before the client port's files changed, so that a client reconnects under what is in force
     * now (a CA dropped, a certificate renewed) without losing a request.
     */
    private boolean closesForLeaving(Slot slot) {
        return plane == Plane.CLIENT
                && slot.call == null
                && (connectionServer.leaving()
                        || tls != null && tls.generation() < connectionServer.tlsGeneration(plane));
    }

    private static boolean keepAlive(Request request) {
        String connection = request.getHeader("Connection:");
        return request.isHttp11() ? !"close".equalsIgnoreCase(connection) : "Keep-Alive".equalsIgnoreCase(connection);
    }

    /** Writes the answered head of the queue, then starts what may start now. */
    private void drain() throws IOException {
        while (!started.isEmpty() && started.peek().answer != null) {
            Slot s = started.poll();
            server.incRequestsProcessed();
            try {
                emit(s.answer);
                if (s.body != null) {
                    uncork(); // the stream follows everything before it
                }
            } catch (IOException e) {
                if (s.body != null) {
                    QueueItem.releaseChain(s.body); // its source is closed, its request counted as done
                }
                throw e;
            }
            if (s.body != null) {
                write(s.body); // one-nio releases the chain itself if this fails
            }
            if (s.close) {
                ending = true;
                for (Slot rest : started) {
                    if (rest.body != null) {
                        QueueItem.releaseChain(rest.body);
                    }
                }
                started.clear();
                waiting.clear();
                scheduleClose();
                return;
            }
        }
        while (!waiting.isEmpty() && !ending) {
            RequestKind kind = RequestKind.of(waiting.peek());
            if (!mayStart(kind)) {
                break;
            }
            start(new Slot(waiting.poll(), kind, false)); // numbered calls never wait
        }
        afterAnswers();
    }

    /**
     * Once nothing is left unanswered: one-nio's "a request is in progress" mark clears, and a client that closed
     * its side gets the connection closed (after the cork is written).
     */
    private void afterAnswers() {
        if (started.isEmpty() && calls == 0) {
            handling = null;
            if (inputClosed && waiting.isEmpty()) {
                scheduleClose();
            }
        }
    }

    /** one-nio's API, for answers given while a request is being started (status, parse and method errors). */
    @Override
    public synchronized void sendResponse(Response response) throws IOException {
        if (starting == null) {
            throw new IOException("no request is being started to answer");
        }
        answer(starting, response);
    }

    /** An error answer closes the connection after everything before it is answered. */
    @Override
    public synchronized void sendError(String code, String message) throws IOException {
        server.incRequestsRejected();
        if (Response.REQUEST_ENTITY_TOO_LARGE.equals(code) && (message == null || message.isEmpty())) {
            message = "request body larger than the limit of " + connectionServer.maxBody() + " bytes\n";
        }
        Response response = new Response(code, message == null ? Response.EMPTY : message.getBytes());
        Slot slot = starting;
        if (slot == null) {
            // one-nio could not parse a request (400, 413): the error takes the next place in line
            slot = new Slot(new Request(Request.METHOD_GET, "/", true), RequestKind.OTHER, false);
            started.add(slot);
            handling = slot.request;
        }
        slot.close = true;
        ending = true;
        answer(slot, response);
    }

    /** The client closed its side of the connection. */
    @Override
    protected void handleSocketClosed() {
        if (selector != null) {
            listen(queueHead == null ? 0 : WRITEABLE);
        }
        inputClosed = true;
        if (started.isEmpty() && waiting.isEmpty() && calls == 0) {
            scheduleClose();
        }
    }

    /** Streams of answers that never reached the write queue are released too (a range's iterator). */
    @Override
    public synchronized void close() {
        for (Slot s : started) {
            if (s.body != null) {
                QueueItem.releaseChain(s.body);
                s.body = null;
            }
        }
        started.clear();
        waiting.clear();
        super.close();
    }
}
