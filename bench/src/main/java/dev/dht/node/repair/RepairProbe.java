package dev.dht.node.repair;

import dev.dht.node.config.ClusterMembers;

/**
 * The scale simulation's door to the repair package (package-private in the node): builds a member's
 * {@link RepairRanges} exactly as the node does and reads the protocol's constants, so the simulation counts the
 * node's own arcs and replica sets and sizes its calls by the node's own fan-out, leaf size and wire format.
 */
public final class RepairProbe {
    /** A span is split in this many parts while it differs. */
    public static final int FANOUT = Reconciliation.FANOUT;
    /** A differing span of at most this many entries is listed instead of split. */
    public static final int LEAF = Reconciliation.LEAF;
    /** Spans per listing call. */
    public static final int SPANS_PER_CALL = Reconciliation.SPANS_PER_CALL;
    /** Arcs compared per step (one summaries call per peer per step at the top level). */
    public static final int ARCS_PER_STEP = RepairSettings.ARCS_PER_STEP;
    /** Bytes a span costs in a query (lo, hi, horizon) and in its answer (count, hash): RepairWire's layout. */
    public static final int QUERY_BYTES = 24;

    public static final int SUMMARY_BYTES = 16;
    /** A listed digest beside its key: int key length, timestamp 8, flags 1, record hash 8 (RepairWire). */
    public static final int DIGEST_BYTES = 4 + 8 + 1 + 8;

    /** What one member's repair ranges hold. */
    public record Shape(
            int arcs, int spans, int groups, int coordinatedGroups, int coordinatedArcs, int coordinatedSpans) {}

    private final RepairRanges ranges;

    private RepairProbe(RepairRanges ranges) {
        this.ranges = ranges;
    }

    /** The ranges the node with this URL builds for this member set at this factor. */
    public static RepairProbe build(String self, ClusterMembers members, int rf) {
        return new RepairProbe(new RepairRanges(self, members, rf));
    }

    public Shape shape() {
        int spans = 0;
        for (RepairRanges.Arc a : ranges.arcs()) {
            spans += a.spans().size();
        }
        int cGroups = 0;
        int cArcs = 0;
        int cSpans = 0;
        for (RepairRanges.Group g : ranges.coordinated()) {
            cGroups++;
            cArcs += g.arcs().size();
            for (RepairRanges.Arc a : g.arcs()) {
                cSpans += a.spans().size();
            }
        }
        return new Shape(ranges.arcs().size(), spans, ranges.groups().size(), cGroups, cArcs, cSpans);
    }

    /** Arcs in each replica set this member coordinates: a round runs its steps set by set. */
    public int[] coordinatedGroupArcs() {
        return ranges.coordinated().stream().mapToInt(g -> g.arcs().size()).toArray();
    }

    /** The unsigned widths (hashes - 1) of the spans of the arcs this member coordinates, for the descent model. */
    public long[] coordinatedSpanWidths() {
        Shape s = shape();
        long[] out = new long[s.coordinatedSpans()];
        int i = 0;
        for (RepairRanges.Group g : ranges.coordinated()) {
            for (RepairRanges.Arc a : g.arcs()) {
                for (Span span : a.spans()) {
                    out[i++] = span.hi() - span.lo();
                }
            }
        }
        return out;
    }
}
