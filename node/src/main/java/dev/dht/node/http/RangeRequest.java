package dev.dht.node.http;

/**
 * A parsed /v0/entities request: keys in [start, end), end == null meaning "to the last key".
 *
 * @param start    inclusive lower bound (UTF-8 of the start parameter; never empty)
 * @param end      exclusive upper bound, or null
 * @param internal true when the request carries {@link Headers#INTERNAL}
 */
public record RangeRequest(byte[] start, byte[] end, boolean internal) {
}
