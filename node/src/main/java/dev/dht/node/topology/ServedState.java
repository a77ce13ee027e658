package dev.dht.node.topology;

/**
 * Where the node's current topology state is published for requests to use (replication's placement,
 * {@code replication.Topology}): the {@link TopologyManager} decides and installs, requests read. Declared here so
 * that topology does not depend on replication.
 */
public interface ServedState {
    /** The state requests are served with, or null while the node has none. */
    TopologyState servedState();

    /** Serves a new state; until {@code graceUntilNanos} a replica still accepts requests from the stage before. */
    void install(TopologyState state, long graceUntilNanos);
}
