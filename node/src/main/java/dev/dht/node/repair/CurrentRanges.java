package dev.dht.node.repair;

import dev.dht.node.replication.Topology;
import dev.dht.node.topology.TopologyState;
import java.util.function.IntUnaryOperator;

/**
 * The repair ranges of the node's current topology: those of the stable member set, or none while a move runs
 * (repair pauses then: the arcs are changing and the moves stream everything anyway) or before the node has a
 * state. Built once per state.
 */
public final class CurrentRanges {
    private final String self;
    private final Topology topology;
    private final IntUnaryOperator rf;
    private TopologyState builtFor;
    private RepairRanges built;

    /** @param rf the replication factor of a set of the given size */
    public CurrentRanges(String self, Topology topology, IntUnaryOperator rf) {
        this.self = self;
        this.topology = topology;
        this.rf = rf;
    }

    /** The ranges of the stable set, or null while moving or undecided. */
    synchronized RepairRanges get() {
        Topology.View v = topology.view();
        if (!v.decided() || v.state().moving()) {
            return null;
        }
        TopologyState s = v.state();
        if (built == null || !s.stable().equals(builtFor.stable())) {
            built = new RepairRanges(self, s.stable(), rf.applyAsInt(s.stable().size()));
        }
        builtFor = s;
        return built;
    }

    /** Why there are no ranges now (for status texts), or null when there are. */
    String pausedBecause() {
        Topology.View v = topology.view();
        if (!v.decided()) {
            return "this node has no topology state yet";
        }
        return v.state().moving() ? "a move is in progress (" + v.state() + "): repair waits until it ends" : null;
    }

    /** Whether a move runs that this node joins (it is in the target set, not the stable one). */
    boolean joining() {
        Topology.View v = topology.view();
        return v.decided()
                && v.state().moving()
                && !v.state().stable().contains(self)
                && v.state().target().contains(self);
    }

    String requestHeader() {
        return topology.view().requestHeader();
    }

    String self() {
        return self;
    }
}
