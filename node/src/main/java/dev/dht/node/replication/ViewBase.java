package dev.dht.node.replication;

import dev.dht.node.ring.Ring;
import dev.dht.node.topology.Stage;
import dev.dht.node.topology.TopologyHeader;
import dev.dht.node.topology.TopologyState;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link Topology.View} derives once from its topology state (rings, this node's indexes, factors, headers,
 * fencing bounds, the members served), apart from what requests ask of it: a superclass, so they read these fields
 * directly.
 */
abstract class ViewBase {
    final TopologyState state;
    final Ring ring;
    final Ring targetRing;
    final int selfIndex;
    final int targetSelf;
    final int rf;
    final int targetRf;
    final long version;
    final String header;
    final String headerLine;
    final String requestHeader;
    final long minAccepted;
    final long graceVersion;
    final long graceUntilNanos;
    final List<String> serving;

    ViewBase(String self, TopologyState state, Ring ring, Ring targetRing, int rf, int targetRf, long graceUntilNanos) {
        this.state = state;
        this.ring = ring;
        this.targetRing = targetRing;
        this.rf = rf;
        this.targetRf = targetRf;
        this.selfIndex = ring == null ? -1 : ring.indexOf(self);
        this.targetSelf = targetRing == null ? -1 : targetRing.indexOf(self);
        this.version = state == null ? TopologyHeader.NONE : state.version();
        this.header = state == null ? null : state.header();
        this.headerLine = state == null ? null : dev.dht.node.http.Headers.TOPOLOGY + ": " + header;
        this.requestHeader = state == null ? null : TopologyHeader.request(state, self);
        this.minAccepted = state == null ? TopologyHeader.NONE : minAccepted(state);
        // joint(e) still admits announced(e) for a grace period: the other members learn the switch within
        // milliseconds, and refusing them meanwhile would fail their requests for nothing
        this.graceVersion = state != null && state.stage() == Stage.JOINT
                ? TopologyState.version(state.epoch(), Stage.ANNOUNCED)
                : TopologyHeader.NONE;
        this.graceUntilNanos = graceUntilNanos;
        List<String> all = new ArrayList<>();
        if (ring != null) {
            all.addAll(ring.members());
        }
        if (targetRing != null) {
            for (String m : targetRing.members()) {
                if (!all.contains(m)) {
                    all.add(m);
                }
            }
        }
        this.serving = List.copyOf(all);
    }

    /**
     * The oldest state a request may come from (docs/cluster.md, "Fencing and learning"): announced(e) still
     * serves S alone, as stable(e-1) does; from joint(e) on, only states that write to T are accepted.
     */
    static long minAccepted(TopologyState s) {
        return s.stage() == Stage.ANNOUNCED
                ? TopologyState.version(s.epoch() - 1, Stage.STABLE)
                : TopologyState.version(s.epoch(), Stage.JOINT);
    }
}
