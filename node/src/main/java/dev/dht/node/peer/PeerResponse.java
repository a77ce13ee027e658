package dev.dht.node.peer;

/**
 * A peer's answer.
 *
 * @param status    HTTP status code
 * @param clock     the peer's clock reading ({@code X-Dht-Clock}), or 0 if it sent none
 * @param timestamp {@code X-Dht-Timestamp}, or 0 if absent
 * @param body      the body (empty array when there is none)
 * @param topology  the peer's topology header ({@code X-Dht-Topology}, parsed by the topology package), or null
 */
public record PeerResponse(int status, long clock, long timestamp, byte[] body, String topology) {

    public PeerResponse(int status, long clock, long timestamp, byte[] body) {
        this(status, clock, timestamp, body, null);
    }
}
