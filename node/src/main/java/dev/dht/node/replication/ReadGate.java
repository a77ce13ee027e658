package dev.dht.node.replication;

/**
 * Whether this node may answer reads from its own store. Closed while it rebuilds (its copy may lack acknowledged
 * writes): a replica read is then answered 503, which the coordinator counts as a missing replica, and as a
 * coordinator it does not count its own copy (docs/cluster.md, "Rebuild").
 */
@FunctionalInterface
public interface ReadGate {
    ReadGate OPEN = () -> null;

    /** Null when reads are served; otherwise why not (a short text for the 503). */
    String notServing();
}
