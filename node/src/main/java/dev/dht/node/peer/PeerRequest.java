package dev.dht.node.peer;

/**
 * One internal request to a peer. The client adds {@code X-Dht-Internal: 1}, the clock reading, for writes the
 * record timestamp, and the sender's topology state as headers (docs/cluster.md, "Internal protocol").
 *
 * @param method    GET, PUT or DELETE (or POST for admin calls)
 * @param target    path and query, already percent-encoded (ASCII)
 * @param clock     the sender's hybrid-logical-clock reading
 * @param timestamp the record timestamp of a write, or 0 for none
 * @param body      request body (sent with Content-Length), or null for none
 * @param topology  the value of {@code X-Dht-Topology} (the sender's state and URL), or null for none
 */
public record PeerRequest(String method, String target, long clock, long timestamp, byte[] body, String topology) {

    public PeerRequest(String method, String target, long clock, long timestamp, byte[] body) {
        this(method, target, clock, timestamp, body, null);
    }
}
