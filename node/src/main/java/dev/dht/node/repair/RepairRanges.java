package dev.dht.node.repair;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.ring.Ring;
import dev.dht.node.ring.XxHash64;
import dev.dht.node.topology.TopologyId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ranges repair works on, for one stable member set: the arcs of its ring that this node replicates, grouped
 * by replica set. Every key of an arc has the same replicas, so an arc is compared as a whole across them (and
 * split when it differs). Each replica set has one coordinator among its members, the same on every node, so at most
 * one round runs per replica set at a time (docs/cluster.md, "Repair").
 */
final class RepairRanges {
    /** One arc of the ring that this node replicates. */
    record Arc(int index, List<Span> spans, List<String> replicas) {}

    /** The arcs sharing one replica set, and who coordinates their repair. */
    record Group(String key, List<String> members, String coordinator, List<Arc> arcs) {}

    private final String self;
    private final String ringId;
    private final Ring ring;
    private final int rf;
    private final List<Arc> arcs;
    private final Map<String, Group> groups;
    /** This node's arcs by ring arc index (null where it is not a replica). */
    private final Arc[] byIndex;

    RepairRanges(String self, ClusterMembers members, int rf) {
        this.self = self;
        this.ring = new Ring(members.urls(), members.racks());
        this.rf = Math.min(rf, ring.size());
        this.ringId = TopologyId.of(members) + "." + this.rf;
        int n = ring.arcCount();
        this.byIndex = new Arc[n];
        List<Arc> mine = new ArrayList<>();
        Map<String, List<Arc>> bySet = new LinkedHashMap<>();
        Map<String, List<String>> setMembers = new LinkedHashMap<>();
        int[] idx = new int[this.rf];
        for (int a = 0; a < n; a++) {
            ring.replicaIndexes(ring.arcEnd(a), this.rf, idx);
            List<String> replicas = new ArrayList<>(this.rf);
            for (int i = 0; i < this.rf; i++) {
                replicas.add(ring.member(idx[i]));
            }
            if (!replicas.contains(self)) {
                continue;
            }
            long after = ring.arcEnd(a == 0 ? n - 1 : a - 1);
            List<Span> spans = n == 1 ? List.of(new Span(0, -1L)) : Span.arc(after, ring.arcEnd(a));
            Arc arc = new Arc(a, spans, List.copyOf(replicas));
            mine.add(arc);
            byIndex[a] = arc;
            List<String> sorted = new ArrayList<>(replicas);
            Collections.sort(sorted);
            String key = String.join(",", sorted);
            bySet.computeIfAbsent(key, k -> new ArrayList<>()).add(arc);
            setMembers.putIfAbsent(key, List.copyOf(sorted));
        }
        this.arcs = List.copyOf(mine);
        Map<String, Group> g = new LinkedHashMap<>();
        for (Map.Entry<String, List<Arc>> e : bySet.entrySet()) {
            List<String> m = setMembers.get(e.getKey());
            g.put(e.getKey(), new Group(e.getKey(), m, coordinatorOf(e.getKey(), m), List.copyOf(e.getValue())));
        }
        this.groups = Collections.unmodifiableMap(g);
    }

    /**
     * The member that coordinates a replica set's repair: the one whose hash with the set is smallest, so the
     * coordination of the sets spreads over the members, and every node computes the same one.
     */
    static String coordinatorOf(String setKey, List<String> members) {
        String best = null;
        long bestHash = 0;
        for (String m : members) {
            byte[] b = (setKey + "|" + m).getBytes(StandardCharsets.UTF_8);
            long h = XxHash64.hash(b);
            if (best == null || Long.compareUnsigned(h, bestHash) < 0) {
                best = m;
                bestHash = h;
            }
        }
        return best;
    }

    /** The set's identity in the repair history: its member set and replication factor. */
    String ringId() {
        return ringId;
    }

    Ring ring() {
        return ring;
    }

    int rf() {
        return rf;
    }

    String self() {
        return self;
    }

    /** Every arc this node replicates, in ring order. */
    List<Arc> arcs() {
        return arcs;
    }

    /** The replica sets of this node's arcs. */
    Map<String, Group> groups() {
        return groups;
    }

    /** The replica sets this node coordinates. */
    List<Group> coordinated() {
        List<Group> out = new ArrayList<>();
        for (Group g : groups.values()) {
            if (g.coordinator().equals(self)) {
                out.add(g);
            }
        }
        return out;
    }

    /** This node's arc with that ring index, or null if it does not replicate it. */
    Arc arc(int index) {
        return index >= 0 && index < byIndex.length ? byIndex[index] : null;
    }

    /** The ring arc index of a key hash. */
    int arcOf(long keyHash) {
        return ring.arcIndex(keyHash);
    }

    @Override
    public String toString() {
        return "RepairRanges{" + ringId + ", " + arcs.size() + " arcs in " + groups.size() + " replica sets}";
    }

    static String describe(List<Span> spans) {
        return Arrays.toString(spans.toArray());
    }
}
