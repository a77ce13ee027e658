package dev.dht.node.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import one.nio.net.Session;
import one.nio.net.Socket;

/**
 * A one-nio write-queue item that produces a chunked body lazily: it encodes records into a small buffer only
 * when the socket can take more, so a range of any size costs one buffer (64 KiB, or one record if a record is
 * larger) and never sits whole in memory. one-nio calls {@link #write} first from the thread that sends the
 * response and then, each time the socket is writable again, from a selector thread; {@link #remaining} stays
 * positive until the terminating chunk is out. {@link #release} runs when the body is complete or the session
 * closes (client gone, or dropped by the send timeout), and closes the source.
 */
final class ChunkedBodyWriter extends Session.QueueItem {
    static final int BUFFER_SIZE = 64 * 1024;
    /** Bytes written per call before yielding the selector thread to other sessions. */
    private static final int WRITE_BUDGET = 256 * 1024;

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ChunkSource source;
    private final Runnable onDone;
    private byte[] buffer = new byte[BUFFER_SIZE];
    private int pos;
    private int limit;
    /** A record taken from the source that did not fit in the current buffer. */
    private boolean pending;

    private boolean sourceDone;
    private boolean lastChunkQueued;
    private boolean released;
    private long records;

    ChunkedBodyWriter(ChunkSource source, Runnable onDone) {
        this.source = source;
        this.onDone = onDone;
    }

    @Override
    public int remaining() {
        return (limit - pos) + (lastChunkQueued ? 0 : 1);
    }

    @Override
    public int write(Socket socket) throws IOException {
        int total = 0;
        while (true) {
            if (pos == limit) {
                if (lastChunkQueued || total >= WRITE_BUDGET) {
                    return total;
                }
                fill();
            }
            int n = socket.write(buffer, pos, limit - pos, 0);
            if (n <= 0) {
                return n; // socket full (0) or an SSL renegotiation (-1): one-nio waits for the right event
            }
            pos += n;
            total += n;
            if (pos < limit) {
                return total;
            }
        }
    }

    /** Encodes the next records into the buffer (called only when it is empty). */
    private void fill() throws IOException {
        pos = 0;
        limit = 0;
        if (buffer.length > BUFFER_SIZE) {
            buffer = new byte[BUFFER_SIZE]; // the previous record was oversized; do not keep its buffer
        }
        try {
            while (!sourceDone) {
                if (!pending) {
                    if (!source.next()) {
                        sourceDone = true;
                        source.close();
                        break;
                    }
                    pending = true;
                }
                if (!append()) {
                    return; // buffer full: the pending record goes first next time
                }
                pending = false;
                records++;
            }
        } catch (RuntimeException e) {
            // Headers are gone already: the only honest signal left is to cut the connection before the last
            // chunk, so that the client sees a truncated body instead of a short but "complete" one.
            throw new IOException("range scan failed after " + records + " records: " + e.getMessage(), e);
        }
        ensureCapacity(LAST_CHUNK.length);
        System.arraycopy(LAST_CHUNK, 0, buffer, limit, LAST_CHUNK.length);
        limit += LAST_CHUNK.length;
        lastChunkQueued = true;
    }

    /** Appends the current record as one chunk; false if it does not fit behind what the buffer holds. */
    private boolean append() {
        int size = source.chunkLength();
        String hex = Integer.toHexString(size);
        int needed = hex.length() + 2 + size + 2;
        if (limit + needed > buffer.length) {
            if (limit > 0) {
                return false;
            }
            buffer = new byte[needed + LAST_CHUNK.length];
        }
        for (int i = 0; i < hex.length(); i++) {
            buffer[limit++] = (byte) hex.charAt(i);
        }
        buffer[limit++] = '\r';
        buffer[limit++] = '\n';
        source.writeChunk(buffer, limit);
        limit += size;
        System.arraycopy(CRLF, 0, buffer, limit, 2);
        limit += 2;
        return true;
    }

    private void ensureCapacity(int extra) {
        if (limit + extra > buffer.length) {
            byte[] bigger = new byte[limit + extra];
            System.arraycopy(buffer, 0, bigger, 0, limit);
            buffer = bigger;
        }
    }

    @Override
    public void release() {
        if (!released) {
            released = true;
            source.close();
            onDone.run();
        }
    }

    /** Records encoded so far (for tests and logs). */
    long records() {
        return records;
    }
}
