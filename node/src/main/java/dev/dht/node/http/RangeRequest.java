package dev.dht.node.http;

/**
 * A parsed /v0/entities request: keys in [start, end), end == null meaning "to the last key".
 *
 * @param start    inclusive lower bound (UTF-8 of the start parameter; never empty)
 * @param end      exclusive upper bound, or null
 * @param internal true when the request carries {@link Headers#INTERNAL}: answer with this node's records only,
 *                 tombstones and timestamps included (the cluster range merges them)
 * @param clock    internal requests: the sender's clock reading; 0 otherwise
 */
public record RangeRequest(byte[] start, byte[] end, boolean internal, long clock) {}
