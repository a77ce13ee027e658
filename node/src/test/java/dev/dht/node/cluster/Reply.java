package dev.dht.node.cluster;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A node's answer as the course's contract sees it: the status, and for a 200 the value. The bodies of other
 * answers (reason texts) are not part of the contract, so two replies with the same non-200 status are equal.
 */
final class Reply {
    static final Reply CREATED = new Reply(201, new byte[0]);
    static final Reply ACCEPTED = new Reply(202, new byte[0]);
    static final Reply BAD_REQUEST = new Reply(400, new byte[0]);
    static final Reply NOT_FOUND = new Reply(404, new byte[0]);
    static final Reply GATEWAY_TIMEOUT = new Reply(504, new byte[0]);

    private final int status;
    private final byte[] body;

    Reply(int status, byte[] body) {
        this.status = status;
        this.body = body;
    }

    static Reply ok(byte[] value) {
        return new Reply(200, value);
    }

    int status() {
        return status;
    }

    byte[] body() {
        return body;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Reply r && r.status == status && (status != 200 || Arrays.equals(r.body, body));
    }

    @Override
    public int hashCode() {
        return status;
    }

    @Override
    public String toString() {
        if (status != 200) {
            return String.valueOf(status);
        }
        String start = HexFormat.of().formatHex(body, 0, Math.min(body.length, 8));
        return "200 (" + body.length + " bytes" + (body.length > 0 ? ": " + start + (body.length > 8 ? "..." : "") : "")
                + ")";
    }
}
