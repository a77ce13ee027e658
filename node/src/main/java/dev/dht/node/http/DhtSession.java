package dev.dht.node.http;

import one.nio.http.HttpSession;
import one.nio.http.Request;
import one.nio.http.Response;
import one.nio.net.Socket;

import java.io.IOException;
import java.util.Arrays;

/**
 * one-nio's HTTP session with what the node adds: the configured body limit (413 with a reason), chunked
 * responses whose body is produced lazily, a send timeout that drops a client which stopped reading, and
 * corked writes: the responses to a batch of pipelined requests go out in one write.
 */
final class DhtSession extends HttpSession {
    private final DhtServer dhtServer;

    // Cork: while the selector thread processes what one read brought (process() holds this session's monitor, so
    // no other thread can answer meanwhile), answers given on that thread are collected and written at the end in
    // one write(2). A node calling another pipelines its requests, so a batch of internal requests costs one
    // write instead of one per answer (on loopback each write also runs the receiver's TCP path).
    private boolean corking;
    private byte[] corked;
    private int corkedLength;

    DhtSession(Socket socket, DhtServer server) {
        super(socket, server);
        this.dhtServer = server;
    }

    @Override
    protected int getMaxRequestBodyLength() {
        return dhtServer.maxBody();
    }

    /**
     * one-nio's cleanup thread asks this every idle-timeout period; IDLE and STALE sessions are closed. A session
     * whose write queue has not moved for the send timeout belongs to a client that stopped reading: closing it
     * releases the queued body (a range stream closes its RocksDB iterator). An idle keep-alive connection goes
     * after the idle timeout.
     */
    @Override
    public int checkStatus(long currentTime, long keepAlive) {
        long lastAccess = lastAccessTime;
        if (queueHead != null) {
            return lastAccess < currentTime - dhtServer.sendTimeoutMillis() ? STALE : ACTIVE;
        }
        if (handling != null) {
            // Waiting for our own answer (a 10-minute profile capture, later a coordinated request): bounded by
            // the request's own timeout, not by the keep-alive (one-nio would drop it after 8 x keep-alive).
            return ACTIVE;
        }
        return lastAccess < currentTime - keepAlive ? IDLE : ACTIVE;
    }

    /**
     * A client that goes away mid-response shows up as an IOException ("Broken pipe", "Connection reset") on the
     * JDK socket fallback, which one-nio would log as an error with a stack trace. It is routine: close quietly.
     */
    @Override
    public void handleException(Throwable e) {
        if (e instanceof IOException) {
            if (log.isDebugEnabled()) {
                log.debug("connection from {} closed: {}", getRemoteHost(), e.toString());
            }
            close();
        } else {
            super.handleException(e);
        }
    }

    @Override
    public synchronized void process(byte[] buffer) throws Exception {
        corking = true;
        try {
            super.process(buffer);
        } finally {
            corking = false;
            uncork();
        }
    }

    @Override
    protected void writeResponse(Response response, boolean includeBody) throws IOException {
        byte[] bytes = response.toBytes(includeBody);
        if (!corking) {
            super.write(bytes, 0, bytes.length);
        } else if (corked == null) {
            corked = bytes; // the usual single answer: kept as is, no copy
            corkedLength = bytes.length;
        } else {
            if (corked.length - corkedLength < bytes.length) {
                corked = Arrays.copyOf(corked, Math.max(corked.length * 2, corkedLength + bytes.length));
            }
            System.arraycopy(bytes, 0, corked, corkedLength, bytes.length);
            corkedLength += bytes.length;
        }
    }

    /** Writes what the cork holds; anything else written to the socket must come after it. */
    private void uncork() throws IOException {
        if (corked != null) {
            byte[] bytes = corked;
            int length = corkedLength;
            corked = null;
            corkedLength = 0;
            super.write(bytes, 0, length);
        }
    }

    /** A close after the last answer ("Connection: close", 413) must not drop answers still in the cork. */
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

    /** one-nio answers an oversized body with an empty 413; give the reason instead. */
    @Override
    public synchronized void sendError(String code, String message) throws IOException {
        if (Response.REQUEST_ENTITY_TOO_LARGE.equals(code) && (message == null || message.isEmpty())) {
            message = "request body larger than the limit of " + dhtServer.maxBody() + " bytes\n";
        }
        super.sendError(code, message);
    }

    /**
     * Like {@link #sendResponse} (same keep-alive and pipelining rules), but the body is a queue item that
     * writes itself as the socket drains.
     */
    synchronized void sendChunked(Response head, QueueItem body) throws IOException {
        Request current = this.handling;
        if (current == null) {
            QueueItem.releaseChain(body);
            throw new IOException("Out of order response");
        }
        server.incRequestsProcessed();
        String connection = current.getHeader("Connection:");
        boolean keepAlive = current.isHttp11()
                ? !"close".equalsIgnoreCase(connection)
                : "Keep-Alive".equalsIgnoreCase(connection);
        head.addHeader(keepAlive ? "Connection: Keep-Alive" : "Connection: close");
        byte[] headBytes = head.toBytes(false);
        uncork();
        write(new ArrayQueueItem(headBytes, 0, headBytes.length, 0).append(body));
        if (!keepAlive) {
            scheduleClose();
        }
        if ((this.handling = current = pipeline.pollFirst()) != null) {
            if (current == FIN) {
                scheduleClose();
            } else {
                server.handleRequest(current, this);
            }
        }
    }
}
