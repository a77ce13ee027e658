package dev.dht.node.hints;

import dev.dht.node.storage.Record;

/**
 * Where hints go under the node's current topology (docs/cluster.md, "Hints, read repair, tombstones"): to their
 * member while it still serves, else to the key's current replicas, so a write missed by a member that has left
 * since is not lost.
 */
public interface HintRouting {
    /** Deliver every hint to its member, with no topology header (a fixed cluster, tests). */
    HintRouting DIRECT = new HintRouting() {
        @Override
        public String header() {
            return null;
        }

        @Override
        public boolean decided() {
            return true;
        }

        @Override
        public boolean serves(String member) {
            return true;
        }

        @Override
        public void reroute(byte[] key, Record record) {
            throw new IllegalStateException("every member serves: nothing to re-route");
        }
    };

    /** X-Dht-Topology of the deliveries: the node's current state. */
    String header();

    /** False while the node has no topology state: hints wait. */
    boolean decided();

    /** Whether the member is one the node's current state sends requests to. */
    boolean serves(String member);

    /** Gives a hint whose member left to the key's current replicas (new hints; the own copy applied directly). */
    void reroute(byte[] key, Record record);
}
