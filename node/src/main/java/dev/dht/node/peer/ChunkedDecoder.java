package dev.dht.node.peer;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The member RPC's chunked body (RFC 9112, 7.1), decoded incrementally from a heap buffer: each call returns the
 * next whole chunk, however the bytes arrived. Chunk extensions are skipped; trailers are not expected (a member
 * sends none) and refused. The range stream sends one range frame per chunk.
 */
public final class ChunkedDecoder {
    /** A size line longer than this is garbage, not something to buffer. */
    private static final int MAX_SIZE_LINE = 1024;

    private static final int SIZE = 0;
    private static final int DATA = 1;
    private static final int DATA_CRLF = 2;
    private static final int LAST_CRLF = 3;
    private static final int DONE = 4;

    private final int maxChunk;
    private int state = SIZE;
    private byte[] chunk;
    private int filled;

    /** @param maxChunk the largest chunk accepted (a bigger one is a protocol error, not an allocation) */
    public ChunkedDecoder(int maxChunk) {
        this.maxChunk = maxChunk;
    }

    /** Whether the last chunk (size 0) and the empty line after it were read. */
    public boolean finished() {
        return state == DONE;
    }

    /**
     * The next whole chunk from {@code in} (a heap buffer in read mode), or null when more bytes are needed (what
     * was there is consumed) or the body is finished.
     */
    public byte[] next(ByteBuffer in) throws IOException {
        while (true) {
            switch (state) {
                case SIZE -> {
                    int size = sizeLine(in);
                    if (size < 0) {
                        return null;
                    }
                    if (size == 0) {
                        state = LAST_CRLF;
                    } else {
                        chunk = new byte[size];
                        filled = 0;
                        state = DATA;
                    }
                }
                case DATA -> {
                    int n = Math.min(chunk.length - filled, in.remaining());
                    in.get(chunk, filled, n);
                    filled += n;
                    if (filled < chunk.length) {
                        return null;
                    }
                    state = DATA_CRLF;
                }
                case DATA_CRLF, LAST_CRLF -> {
                    if (in.remaining() < 2) {
                        return null;
                    }
                    if (in.get() != '\r' || in.get() != '\n') {
                        throw new IOException("no CRLF after a chunk");
                    }
                    if (state == LAST_CRLF) {
                        state = DONE;
                        return null;
                    }
                    state = SIZE;
                    byte[] out = chunk;
                    chunk = null;
                    return out;
                }
                default -> {
                    return null;
                }
            }
        }
    }

    /** The chunk size of a complete size line (consumed), or -1 (nothing consumed) while the line is incomplete. */
    private int sizeLine(ByteBuffer in) throws IOException {
        byte[] a = in.array();
        int start = in.arrayOffset() + in.position();
        int limit = in.arrayOffset() + in.limit();
        int eol = -1;
        for (int i = start; i + 1 < limit; i++) {
            if (a[i] == '\r' && a[i + 1] == '\n') {
                eol = i;
                break;
            }
        }
        if (eol < 0) {
            if (limit - start > MAX_SIZE_LINE) {
                throw new IOException("chunk size line longer than " + MAX_SIZE_LINE + " bytes");
            }
            return -1;
        }
        long size = 0;
        int i = start;
        for (; i < eol && a[i] != ';' && a[i] != ' ' && a[i] != '\t'; i++) { // then extensions, skipped
            int d = Character.digit(a[i], 16);
            if (d < 0 || size > maxChunk) {
                throw new IOException("bad chunk size: " + ResponseHead.ascii(a, start, eol));
            }
            size = size * 16 + d;
        }
        if (i == start || size > maxChunk) {
            throw new IOException("bad chunk size: " + ResponseHead.ascii(a, start, eol));
        }
        in.position(eol + 2 - in.arrayOffset());
        return (int) size;
    }
}
