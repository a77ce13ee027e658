package dev.dht.node.repair;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.json.Json;
import dev.dht.node.storage.Store;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A rebuild's tool (dev.dht.node.rebuild): pulls this node's arcs from every other replica, merged by timestamp
 * (each key's newest version, from whichever replica holds it), through the same comparison as repair, so an arc
 * already in agreement costs only its hashes. Blocking; for the rebuild's own thread.
 */
public final class RangePull {
    private final Store store;
    private final CurrentRanges current;
    private final RepairPeers peers;
    private final RepairStats stats;
    private final HybridLogicalClock clock;
    /**
     * The member set pulled under, and the moment its pulls read the replicas' digests as of: the first pull under
     * it in this process. One index build per replica serves the whole rebuild; what is written after that moment
     * reaches this node itself (it takes writes while it rebuilds).
     */
    private String pullRing;

    private RangeSummaries.AsOf pullAsOf;

    RangePull(Store store, CurrentRanges current, RepairPeers peers, RepairStats stats, HybridLogicalClock clock) {
        this.store = store;
        this.current = current;
        this.peers = peers;
        this.stats = stats;
        this.clock = clock;
    }

    /** The arcs to pull under the current stable member set, or null while moving or undecided. */
    public record Plan(String ringId, int arcs, List<String> others) {}

    public Plan plan() {
        RepairRanges r = current.get();
        if (r == null) {
            return null;
        }
        List<String> others = new ArrayList<>(r.ring().members());
        others.remove(r.self());
        return new Plan(r.ringId(), r.arcs().size(), others);
    }

    /** Whether this node joins the move in progress: new in the target set, it gets its data by the move. */
    public boolean joining() {
        return current.joining();
    }

    /** Why there is no plan now. */
    public String pausedBecause() {
        return current.pausedBecause();
    }

    /** What one member says about itself ({@code GET /v0/internal/repair/state}). */
    public record PeerState(boolean empty, boolean serving) {}

    /** Asks every member at once; the members that did not answer are missing from the map. */
    public Map<String, PeerState> peerStates(List<String> members) {
        Map<String, RepairPeers.Call> calls = new LinkedHashMap<>();
        for (String m : members) {
            calls.put(m, peers.state(m));
        }
        Map<String, PeerState> out = new LinkedHashMap<>();
        for (Map.Entry<String, RepairPeers.Call> e : calls.entrySet()) {
            try {
                out.put(e.getKey(), Json.read(e.getValue().body(), PeerState.class));
            } catch (RepairException | IllegalArgumentException ex) {
                // no answer, or not one we understand: missing
            }
        }
        return out;
    }

    /** The figures of one pull. */
    public record Pulled(long keys, long bytes) {}

    /**
     * Pulls arcs [from, to) of this node's arcs (in ring order) under ringId from every other replica of each.
     * Throws when a replica does not answer (nothing is wrong with what was pulled: it is only incomplete), or
     * when the member set is no longer ringId.
     */
    public Pulled pull(String ringId, int from, int to) throws RepairException {
        RepairRanges r = current.get();
        if (r == null || !r.ringId().equals(ringId)) {
            throw new RepairException(r == null ? "this node" : r.self(), "the member set changed");
        }
        if (!ringId.equals(pullRing)) {
            pullRing = ringId;
            pullAsOf = new RangeSummaries.AsOf(clock.now(), clock);
        }
        Map<List<String>, List<RepairRanges.Arc>> byReplicas = new LinkedHashMap<>();
        for (RepairRanges.Arc a : r.arcs().subList(from, Math.min(to, r.arcs().size()))) {
            List<String> sorted = new ArrayList<>(a.replicas());
            java.util.Collections.sort(sorted);
            byReplicas.computeIfAbsent(sorted, k -> new ArrayList<>()).add(a);
        }
        long keys = 0;
        long bytes = 0;
        for (Map.Entry<List<String>, List<RepairRanges.Arc>> e : byReplicas.entrySet()) {
            if (e.getKey().size() < 2) {
                continue; // this node is the only replica: nothing to pull
            }
            long[] horizons = new long[e.getValue().size()];
            java.util.Arrays.fill(horizons, Long.MIN_VALUE); // everything, tombstones included
            Reconciliation.Result res = new Reconciliation(
                            store, peers, r, e.getKey(), true, Long.MAX_VALUE, pullAsOf, stats, LocalScans.INLINE)
                    .run(e.getValue(), horizons);
            keys += res.keysRepaired();
            bytes += res.bytesRepaired();
        }
        return new Pulled(keys, bytes);
    }
}
