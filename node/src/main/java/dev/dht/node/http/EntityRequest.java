package dev.dht.node.http;

/**
 * A parsed /v0/entity request.
 *
 * @param op        what to do
 * @param id        the id as the client sent it (decoded)
 * @param key       the storage key: UTF-8 bytes of the id (so ranges order by code point)
 * @param body      the value of a PUT (may be empty), null otherwise
 * @param replicas  ack/from, validated against the cluster size
 * @param internal  true when the request carries {@link Headers#INTERNAL}: a node-to-node call
 * @param timestamp internal PUT/DELETE: the record timestamp to store ({@link Headers#TIMESTAMP}); 0 otherwise
 * @param clock     internal requests: the sender's clock reading ({@link Headers#CLOCK}); 0 otherwise
 * @param topology  internal requests: the sender's topology state and URL ({@link Headers#TOPOLOGY}), or null
 */
public record EntityRequest(
        Op op,
        String id,
        byte[] key,
        byte[] body,
        Replicas replicas,
        boolean internal,
        long timestamp,
        long clock,
        String topology) {

    public enum Op {
        GET,
        PUT,
        DELETE
    }
}
