package dev.dht.node.http;

import dev.dht.node.loop.SelectorLoop;
import java.io.IOException;
import java.util.Arrays;
import one.nio.http.HttpServer;
import one.nio.http.HttpSession;
import one.nio.http.Response;
import one.nio.net.Socket;

/**
 * A one-nio HTTP session whose answers are corked: answers given on the selector thread (while it processes a
 * read, or at the end of its pass) are collected and written once, when the pass ends, so that a batch of
 * pipelined answers costs one write(2) instead of one each (on loopback each write also runs the receiver's TCP
 * path). Answers given off a selector thread are written at once, behind anything corked. Guarded by the session's
 * monitor, like the rest of one-nio's session.
 */
abstract class CorkedSession extends HttpSession {
    private boolean corking;
    private boolean uncorkQueued;
    private byte[] corked;
    private int corkedLength;
    private final SelectorLoop.Task uncorkAtEndOfPass = this::uncorkAtEndOfPass;

    CorkedSession(Socket socket, HttpServer server) {
        super(socket, server);
    }

    @Override
    public synchronized void process(byte[] buffer) throws Exception {
        corking = true;
        try {
            super.process(buffer);
        } finally {
            corking = false;
            if (corked != null) {
                queueUncork();
            }
        }
    }

    /** Answer bytes: corked on the selector thread (and behind anything corked already), else written now. */
    protected final void emit(byte[] bytes) throws IOException {
        if (corked == null && !corking && SelectorLoop.current() == null) {
            super.write(bytes, 0, bytes.length);
            return;
        }
        if (corked == null) {
            corked = bytes; // the usual single answer: kept as is, no copy
            corkedLength = bytes.length;
        } else {
            if (corked.length - corkedLength < bytes.length) {
                corked = Arrays.copyOf(corked, Math.max(corked.length * 2, corkedLength + bytes.length));
            }
            System.arraycopy(bytes, 0, corked, corkedLength, bytes.length);
            corkedLength += bytes.length;
        }
        if (!corking) {
            queueUncork();
        }
    }

    /** The cork is written at the end of the selector pass (or now, off a selector thread). */
    private void queueUncork() throws IOException {
        SelectorLoop loop = SelectorLoop.current();
        if (loop == null) {
            uncork();
        } else if (!uncorkQueued) {
            uncorkQueued = true;
            loop.sendAtEndOfPass(uncorkAtEndOfPass);
        }
    }

    private synchronized void uncorkAtEndOfPass() {
        uncorkQueued = false;
        try {
            uncork();
        } catch (IOException e) {
            handleException(e);
        }
    }

    /** Writes what the cork holds; anything else written to the socket must come after it. */
    protected final void uncork() throws IOException {
        if (corked != null) {
            byte[] bytes = corked;
            int length = corkedLength;
            corked = null;
            corkedLength = 0;
            super.write(bytes, 0, length);
        }
    }

    @Override
    protected void writeResponse(Response response, boolean includeBody) throws IOException {
        emit(response.toBytes(includeBody));
    }

    /** A close must not drop answers still in the cork. */
    @Override
    public synchronized void scheduleClose() {
        try {
            uncork();
        } catch (IOException e) {
            close();
            return;
        }
        super.scheduleClose();
    }
}
