package dev.dht.node.objectstore;

import java.io.IOException;
import java.io.InputStream;

/**
 * A response body: a known length, chunked, or until the server closes. At its end the connection goes back to
 * the pool (if it may); closed before its end, the connection is closed.
 */
final class ResponseBody extends InputStream {
    private final Http1Transport.Wire c;
    private final boolean chunked;
    private final boolean keep;
    /** Bytes left in the body (known length) or in the current chunk; -1: until EOF, or no chunk read yet. */
    private long left;
    private boolean ended;

    ResponseBody(Http1Transport.Wire c, long length, boolean chunked, boolean keep) {
        this.c = c;
        this.chunked = chunked;
        this.keep = keep;
        this.left = length;
        if (length == 0 && !chunked) {
            end(true);
        }
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (ended) {
            return -1;
        }
        if (len == 0) {
            return 0;
        }
        if (chunked && left <= 0) {
            if (left == 0) {
                crlf(); // the end of the previous chunk
            }
            left = chunkSize();
            if (left == 0) {
                int[] budget = {Http1Transport.MAX_HEAD};
                while (!c.line(budget).isEmpty()) {
                    // trailers: none expected, none kept
                }
                end(true);
                return -1;
            }
        }
        int want = left < 0 ? len : (int) Math.min(len, left);
        int n = c.in().read(b, off, want);
        if (n < 0) {
            if (left < 0 && !chunked) {
                end(false); // a body delimited by the close
                return -1;
            }
            c.close();
            ended = true;
            throw new IOException("the object store closed the connection " + left + " bytes before the body's end");
        }
        if (left > 0) {
            left -= n;
            if (left == 0 && !chunked) {
                end(true);
            }
        }
        return n;
    }

    private long chunkSize() throws IOException {
        String line = c.line(new int[] {Http1Transport.MAX_HEAD});
        int semi = line.indexOf(';');
        String hex = (semi < 0 ? line : line.substring(0, semi)).trim();
        try {
            long n = Long.parseLong(hex, 16);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IOException("bad chunk size: " + Http1Transport.truncate(line));
        }
    }

    private void crlf() throws IOException {
        if (!c.line(new int[] {2}).isEmpty()) {
            throw new IOException("a chunk longer than its size");
        }
    }

    private void end(boolean reusable) {
        ended = true;
        c.done(reusable && keep);
    }

    @Override
    public void close() {
        if (!ended) {
            ended = true;
            c.close(); // the rest unread: this connection cannot carry another exchange
        }
    }
}
