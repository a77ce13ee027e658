package dev.dht.node.ring;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The order in which a walk from a key takes the members when they belong to racks (docs/placement.md, "Racks"):
 * round by round. A member's round is how many members of its rack the walk met before it; the list is every
 * member of round 0 in walk order (one per rack: distinct racks first), then every member of round 1 in walk order,
 * and so on. Hence:
 * <ul>
 *   <li>the first min(from, racks) replicas are in distinct racks, and a rack repeats only once every rack has a
 *       replica: with at least RF racks, a key's RF replicas are in RF racks (Cassandra's NetworkTopologyStrategy
 *       gives the same lists then); with fewer, each rack holds about RF/racks of them (NTS gives its repeats to
 *       the first members its walk meets, so one rack may hold all of them);</li>
 *   <li>the order does not depend on {@code from}, so the replicas for a smaller {@code from} are a prefix of those
 *       for a larger one (the course's contract; an RF-dependent walk such as NTS's would break it);</li>
 *   <li>with every member in a rack of its own every round is 0: the plain walk, placement as without racks.</li>
 * </ul>
 *
 * <p>The first {@code want} entries are known once every rack has shown as many members as rounds before the last
 * one needed ({@code R}), and {@code want} members of rounds up to R were met: a member met later can only be of round R or later, and then comes after them. So a walk stops after a few members for small
 * {@code want}, as the plain walk does.
 */
final class RackOrder {
    private final int[] rackOf; // member index -> rack index
    private final String[] rackNames; // rack index -> name (sorted)
    /** For want = 1..n: the last round R the first want entries can reach. */
    private final int[] roundFor;
    /** For R = 0..maxRound: how many members the racks must have shown for rounds 0..R-1 to be complete. */
    private final int[] completeBefore;

    /** @param rackOfMember the rack name of each member, by member index */
    RackOrder(String[] rackOfMember) {
        TreeMap<String, Integer> index = new TreeMap<>();
        for (String rack : rackOfMember) {
            index.putIfAbsent(rack, 0);
        }
        this.rackNames = index.keySet().toArray(new String[0]);
        for (int i = 0; i < rackNames.length; i++) {
            index.put(rackNames[i], i);
        }
        this.rackOf = new int[rackOfMember.length];
        int[] size = new int[rackNames.length];
        int largest = 0;
        for (int m = 0; m < rackOfMember.length; m++) {
            rackOf[m] = index.get(rackOfMember[m]);
            largest = Math.max(largest, ++size[rackOf[m]]);
        }
        int n = rackOfMember.length;
        this.completeBefore = new int[largest + 1];
        for (int r = 0; r <= largest; r++) {
            for (int s : size) {
                completeBefore[r] += Math.min(s, r);
            }
        }
        this.roundFor = new int[n + 1];
        for (int want = 1, r = 0; want <= n; want++) {
            while (completeBefore[r + 1] < want) { // rounds 0..r hold completeBefore[r + 1] members
                r++;
            }
            roundFor[want] = r;
        }
    }

    /** Each member's rack by index (names sorted), or null without racks; every member needs one if any has. */
    static String[] racksOf(String[] names, Map<String, String> racks) {
        if (racks.isEmpty()) {
            return null;
        }
        String[] out = new String[names.length];
        for (int m = 0; m < names.length; m++) {
            String rack = racks.get(names[m]);
            if (rack == null || rack.isBlank()) {
                throw new IllegalArgumentException("member " + names[m] + " has no rack (racks are given for "
                        + racks.keySet() + "): give every member a rack, or none");
            }
            out[m] = rack;
        }
        return out;
    }

    int racks() {
        return rackNames.length;
    }

    int rackOf(int member) {
        return rackOf[member];
    }

    String rackName(int rack) {
        return rackNames[rack];
    }

    /** Whether every member has a rack of its own: then the order is the plain walk's. */
    boolean trivial() {
        return rackNames.length == rackOf.length;
    }

    /** Per-walk bookkeeping; one per thread (the ring's build reuses one, a long lookup makes its own). */
    Scratch scratch() {
        return new Scratch(rackOf.length, rackNames.length);
    }

    static final class Scratch {
        final int[] seenAt; // member -> the walk (stamp) that last met it
        final int[] perRack; // members of the rack met in this walk
        final int[] metMember; // members met, in walk order
        final int[] metRound; // their rounds
        int stamp;

        Scratch(int members, int racks) {
            this.seenAt = new int[members];
            Arrays.fill(seenAt, -1);
            this.perRack = new int[racks];
            this.metMember = new int[members];
            this.metRound = new int[members];
        }
    }

    /**
     * Writes the first {@code want} members (indexes) of the walk that starts at point {@code start} into
     * {@code out[0..want)}, in rack order. {@code owners} are the points' members in ring order.
     */
    void walk(char[] owners, int start, int want, Scratch s, int[] out) {
        int met = collect(owners, start, want, s);
        int found = 0;
        for (int round = 0; found < want; round++) {
            for (int i = 0; i < met && found < want; i++) {
                if (s.metRound[i] == round) {
                    out[found++] = s.metMember[i];
                }
            }
        }
    }

    /** Walks from start until the first want entries are known; returns how many members it met. */
    private int collect(char[] owners, int start, int want, Scratch s) {
        int stamp = ++s.stamp;
        int lastRound = roundFor[want];
        int missing = completeBefore[lastRound]; // members still to meet for rounds 0..lastRound-1
        int upToLast = 0; // members met of rounds 0..lastRound
        int met = 0;
        int total = owners.length;
        for (int p = start; missing > 0 || upToLast < want; p = p + 1 == total ? 0 : p + 1) {
            int m = owners[p];
            if (s.seenAt[m] == stamp) {
                continue;
            }
            s.seenAt[m] = stamp;
            int round = s.perRack[rackOf[m]]++;
            if (round < lastRound) {
                missing--;
            }
            if (round <= lastRound) {
                upToLast++;
            }
            s.metMember[met] = m;
            s.metRound[met++] = round;
        }
        for (int i = 0; i < met; i++) {
            s.perRack[rackOf[s.metMember[i]]] = 0;
        }
        return met;
    }
}
