package dev.dht.node.topology;

/** Told about a request from a node whose topology state is newer than this node's (the replica endpoint tells). */
@FunctionalInterface
public interface Learner {
    Learner NONE = (sender, version) -> {};

    /** Must not block: runs on a selector thread. */
    void newerState(String sender, long version);
}
