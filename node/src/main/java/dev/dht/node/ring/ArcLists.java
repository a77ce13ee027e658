package dev.dht.node.ring;

import java.util.Arrays;

/**
 * How a ring's replica lists are made from its points: each arc's list precomputed to a depth when the ring is
 * built, and the walk for a longer list at lookup time (huge clusters only). Without racks a list is the distinct
 * members in walk order; with racks, {@link RackOrder}'s order.
 */
final class ArcLists {
    private ArcLists() {}

    /**
     * Fills {@code table[arc * depth .. arc * depth + depth)} with the first depth entries of every arc's list.
     *
     * @param owners  the points' members in ring order (arc a starts its walk at point a)
     * @param members how many members there are
     * @param order   the rack order, or null for the plain walk
     */
    static void fill(char[] owners, int members, RackOrder order, int depth, char[] table) {
        int total = owners.length;
        if (order != null) {
            RackOrder.Scratch scratch = order.scratch();
            int[] list = new int[depth];
            for (int arc = 0; arc < total; arc++) {
                order.walk(owners, arc, depth, scratch, list);
                for (int i = 0, base = arc * depth; i < depth; i++) {
                    table[base + i] = (char) list[i];
                }
            }
            return;
        }
        int[] seenAt = new int[members];
        Arrays.fill(seenAt, -1);
        for (int arc = 0; arc < total; arc++) {
            int base = arc * depth;
            int found = 0;
            for (int p = arc; found < depth; p = p + 1 == total ? 0 : p + 1) {
                int m = owners[p];
                if (seenAt[m] != arc) {
                    seenAt[m] = arc;
                    table[base + found++] = (char) m;
                }
            }
        }
    }

    /** The first {@code from} entries of arc's list into {@code out}: walks clockwise, skipping members seen. */
    static void walk(char[] owners, int arc, int from, RackOrder order, int[] out) {
        if (order != null) {
            order.walk(owners, arc, from, order.scratch(), out);
            return;
        }
        int found = 0;
        for (int p = arc; found < from; p = p + 1 == owners.length ? 0 : p + 1) {
            int m = owners[p];
            boolean seen = false;
            for (int i = 0; i < found && !seen; i++) {
                seen = out[i] == m;
            }
            if (!seen) {
                out[found++] = m;
            }
        }
    }
}
