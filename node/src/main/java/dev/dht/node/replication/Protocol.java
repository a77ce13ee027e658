package dev.dht.node.replication;

import dev.dht.node.http.Headers;
import dev.dht.node.http.QueryParams;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import dev.dht.node.storage.CorruptRecordException;
import dev.dht.node.storage.Record;
import java.nio.charset.StandardCharsets;
import one.nio.http.Response;

/**
 * The internal protocol between members, in one place (docs/cluster.md, "Internal protocol"). Every internal
 * request carries {@code X-Dht-Internal: 1} and the sender's clock ({@code X-Dht-Clock}); every answer carries the
 * replica's clock. Entity requests:
 * <pre>
 *   GET    /v0/entity?id=   -> 200 + the stored record, encoded (flags, timestamp, value; tombstones too) | 404 absent
 *   PUT    /v0/entity?id=   X-Dht-Timestamp: ts, body = value -> 201 stored (or already there)
 *   DELETE /v0/entity?id=   X-Dht-Timestamp: ts                -> 202 tombstone stored (or already there)
 *   a write older than what the replica holds                  -> 409 + X-Dht-Timestamp of the newer record
 * </pre>
 */
public final class Protocol {
    public static final int CONFLICT = 409;
    /** A replica refused a request from an older topology state (docs/cluster.md, "Fencing and learning"). */
    public static final int MISDIRECTED = 421;

    private Protocol() {}

    public static String entityTarget(byte[] key) {
        return "/v0/entity?id=" + QueryParams.encode(new String(key, StandardCharsets.UTF_8));
    }

    /** @param topology the sender's X-Dht-Topology (its state and URL), or null */
    public static PeerRequest read(String target, long clock, String topology) {
        return new PeerRequest("GET", target, clock, 0, null, topology);
    }

    /** The write of a record: PUT with its value, or DELETE for a tombstone. */
    public static PeerRequest write(String target, Record record, long clock, String topology) {
        return record.isTombstone()
                ? new PeerRequest("DELETE", target, clock, record.timestamp(), null, topology)
                : new PeerRequest("PUT", target, clock, record.timestamp(), record.value(), topology);
    }

    /** Whether a replica refused the call because the caller's topology state is older than it accepts. */
    public static boolean refused(PeerResponse response) {
        return response.status() == MISDIRECTED;
    }

    /** The record in an internal GET answer: null when the replica never saw the key (404). */
    public static Record readAnswer(PeerResponse response) {
        if (response.status() == 404) {
            return null;
        }
        if (response.status() != 200) {
            throw new CorruptRecordException("replica answered " + response.status() + " to an internal read");
        }
        return Record.decode(response.body());
    }

    /** Whether an internal write was stored (2xx). 409 means the replica holds something newer. */
    public static boolean writeStored(PeerResponse response) {
        return response.status() / 100 == 2;
    }

    /** Adds the local clock reading to an answer. */
    public static Response withClock(Response response, long clock) {
        response.addHeader(Headers.CLOCK + ": " + clock);
        return response;
    }

    /** Adds the local clock reading and topology state (if it has one) to an answer. */
    public static Response withClock(Response response, long clock, String topology) {
        response.addHeader(Headers.CLOCK + ": " + clock);
        if (topology != null) {
            response.addHeader(Headers.TOPOLOGY + ": " + topology);
        }
        return response;
    }
}
