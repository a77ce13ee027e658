package dev.dht.node.http;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import one.nio.http.Response;

/**
 * A response whose body is a slice of a larger array: a GET answers with the value part of the stored record
 * as RocksDB returned it, and the only copy made is into the bytes that go to the socket.
 */
final class SliceResponse extends Response {
    private static final byte[] HTTP11 = "HTTP/1.1 ".getBytes(StandardCharsets.US_ASCII);

    private final byte[] array;
    private final int offset;
    private final int length;

    SliceResponse(String status, byte[] array, int offset, int length) {
        super(status);
        this.array = array;
        this.offset = offset;
        this.length = length;
        addHeader("Content-Length: " + length);
    }

    @Override
    public byte[] getBody() {
        return Arrays.copyOfRange(array, offset, offset + length);
    }

    @Override
    public void setBody(byte[] body) {
        throw new UnsupportedOperationException("the body of a slice response is fixed");
    }

    @Override
    public byte[] toBytes(boolean includeBody) {
        String[] headers = getHeaders();
        int count = getHeaderCount();
        int size = HTTP11.length + 2;
        for (int i = 0; i < count; i++) {
            size += headers[i].length() + 2;
        }
        if (includeBody) {
            size += length;
        }
        byte[] out = new byte[size];
        System.arraycopy(HTTP11, 0, out, 0, HTTP11.length);
        int p = HTTP11.length;
        for (int i = 0; i < count; i++) {
            String h = headers[i];
            // Header lines are ASCII (status line, Content-Length, Connection): one byte per char.
            for (int j = 0, n = h.length(); j < n; j++) {
                out[p++] = (byte) h.charAt(j);
            }
            out[p++] = '\r';
            out[p++] = '\n';
        }
        out[p++] = '\r';
        out[p++] = '\n';
        if (includeBody) {
            System.arraycopy(array, offset, out, p, length);
        }
        return out;
    }
}
