package dev.dht.node.http;

import one.nio.http.Request;

/**
 * Header names the node defines: the internal protocol between members (docs/cluster.md, "Internal protocol").
 */
public final class Headers {
    /**
     * Marks a node-to-node call ({@code X-Dht-Internal: 1}): the request acts on local storage only and is never
     * coordinated again.
     */
    public static final String INTERNAL = "X-Dht-Internal";
    /** The sender's hybrid-logical-clock reading, on every internal request and response; merged on receipt. */
    public static final String CLOCK = "X-Dht-Clock";
    /**
     * The record's timestamp: on an internal PUT/DELETE the timestamp to store; on a 409 answer the timestamp of
     * the newer record the replica keeps.
     */
    public static final String TIMESTAMP = "X-Dht-Timestamp";
    /**
     * The caller's number for an internal request, echoed on its answer. A request that carries it may be answered
     * out of order: the caller matches answers by number, so one slow request (a read from disk) does not hold up
     * the answers behind it on the connection.
     */
    public static final String CALL = "X-Dht-Call";
    /**
     * The sender's topology state ({@code <epoch>.<a|j|s>.<id(S)>.<id(T)|->}), on every internal request (followed by
     * a space and the sender's member URL) and answer: a receiver refuses a request from an older state than it
     * accepts (421), and a node that sees a newer one fetches it (docs/cluster.md, "Fencing and learning").
     */
    public static final String TOPOLOGY = "X-Dht-Topology";
    /** The status of a request refused because the sender's topology state is older than the receiver accepts. */
    public static final String MISDIRECTED = "421 Misdirected Request";

    private Headers() {}

    /** A numeric header's value, or {@code missing} when absent or not a number. */
    public static long longValue(Request request, String name, long missing) {
        String v = request.getHeader(name + ":");
        if (v == null) {
            return missing;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return missing;
        }
    }
}
