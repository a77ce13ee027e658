package dev.dht.node.http;

import one.nio.http.HttpSession;
import one.nio.http.Request;
import one.nio.http.Response;
import one.nio.net.Socket;

import java.io.IOException;

/**
 * one-nio's HTTP session with what the node adds: the configured body limit (413 with a reason), chunked
 * responses whose body is produced lazily, and a send timeout that drops a client which stopped reading.
 */
final class DhtSession extends HttpSession {
    private final DhtServer dhtServer;

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
