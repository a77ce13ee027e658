package dev.dht.node.peer;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The asynchronous client's answers, one after another on a connection: the head ({@link ResponseHead}), then a
 * body framed by Content-Length (every answer of a node to this client has one; chunked bodies only come from range
 * requests, which the blocking range reader decodes with {@link ChunkedDecoder}). Feed it whatever the socket
 * delivered; it returns each complete response once.
 */
final class ResponseParser {
    private static final byte[] EMPTY = new byte[0];

    private final ResponseHead head = new ResponseHead();
    private boolean inBody;
    private byte[] body;
    private int bodyFilled;

    /** The X-Dht-Call number of the last complete response, or -1 if it had none. */
    long callNumber() {
        return head.call();
    }

    /** Whether the last complete response asked to close the connection. */
    boolean closeRequested() {
        return head.close();
    }

    /**
     * Consumes bytes from {@code in} (a heap buffer in read mode) and returns the next complete response, or
     * null if more bytes are needed (everything usable was consumed).
     */
    PeerResponse parse(ByteBuffer in) throws IOException {
        if (!inBody) {
            if (!head.parse(in)) {
                return null;
            }
            long length = head.contentLength();
            if (head.chunked()) {
                throw new IOException("unexpected chunked response to an internal entity request");
            }
            if (length < 0 || length > Integer.MAX_VALUE - 16) {
                throw new IOException("response without a usable Content-Length (status " + head.status() + ")");
            }
            body = length == 0 ? EMPTY : new byte[(int) length];
            bodyFilled = 0;
            inBody = true;
        }
        int n = Math.min(body.length - bodyFilled, in.remaining());
        in.get(body, bodyFilled, n);
        bodyFilled += n;
        if (bodyFilled < body.length) {
            return null;
        }
        inBody = false;
        return new PeerResponse(head.status(), head.clock(), head.timestamp(), body, head.topology());
    }
}
