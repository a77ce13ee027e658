package dev.dht.node.ring;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A ring's arrays and their building from the member set (checks, points, bucket index, arc lists), apart from the
 * lookups ({@link Ring}): a superclass, so that the lookups read these fields directly.
 */
abstract class RingLayout {
    final String[] names; // canonical (sorted) member order; a member's index is its position here
    final String[] rackOfMember; // each member's rack by index, or null without racks
    final RackOrder rackOrder; // null when the order is the plain walk's (no racks, or one member each)
    final Set<String> memberSet;
    final int vnodesPerMember;
    final long[] points; // sorted; stored as hash ^ Long.MIN_VALUE so signed order = unsigned order
    final char[] owners; // owners[p] = member index of point p (16 bits: half the cache footprint)
    final int shift; // bucket of a hash = hash >>> shift (its top bits)
    final int[] bucketStart; // points of bucket b: [bucketStart[b], bucketStart[b + 1])
    final int depth; // entries precomputed per arc
    final char[] table; // arc a's list: table[a * depth .. a * depth + depth)

    RingLayout(
            Collection<String> members,
            Map<String, String> racks,
            int vnodesPerMember,
            int tableBudget,
            Ring.PointHash pointHash) {
        Objects.requireNonNull(members, "members");
        if (vnodesPerMember < 1 || vnodesPerMember > Ring.MAX_VNODES) {
            throw new IllegalArgumentException(
                    "vnodes per member must be within 1.." + Ring.MAX_VNODES + ", got " + vnodesPerMember);
        }
        TreeSet<String> sorted = new TreeSet<>();
        for (String member : members) {
            if (member == null || member.isBlank()) {
                throw new IllegalArgumentException("a member id must not be null or blank: " + members);
            }
            sorted.add(member);
        }
        if (sorted.isEmpty()) {
            throw new IllegalArgumentException("a ring needs at least one member");
        }
        if (sorted.size() > Ring.MAX_MEMBERS) {
            throw new IllegalArgumentException(sorted.size() + " members exceed the limit of " + Ring.MAX_MEMBERS);
        }
        if ((long) sorted.size() * vnodesPerMember > Ring.MAX_POINTS) {
            throw new IllegalArgumentException(sorted.size() + " members x " + vnodesPerMember + " vnodes exceeds "
                    + Ring.MAX_POINTS + " points; use fewer vnodes per member");
        }
        this.names = sorted.toArray(new String[0]);
        this.memberSet = Collections.unmodifiableSortedSet(sorted);
        this.rackOfMember = RackOrder.racksOf(names, Objects.requireNonNull(racks, "racks"));
        RackOrder order = rackOfMember == null ? null : new RackOrder(rackOfMember);
        this.rackOrder = order == null || order.trivial() ? null : order;
        this.vnodesPerMember = vnodesPerMember;

        int n = names.length;
        int total = n * vnodesPerMember;
        this.points = new long[total];
        this.owners = new char[total];
        placePoints(pointHash);

        int bits = Math.max(1, 32 - Integer.numberOfLeadingZeros(total - 1)); // about one point per bucket
        this.shift = 64 - bits;
        this.bucketStart = indexBuckets(1 << bits);

        this.depth = Math.min(n, Math.max(Ring.MIN_DEPTH, tableBudget / total));
        this.table = new char[total * depth];
        ArcLists.fill(owners, names.length, rackOrder, depth, table);
    }

    /** Fills points/owners sorted by (point, member, vnode): the last two only break (astronomically rare) ties. */
    private void placePoints(Ring.PointHash pointHash) {
        int total = points.length;
        long[] raw = new long[total];
        Integer[] order = new Integer[total];
        for (int m = 0, p = 0; m < names.length; m++) {
            byte[] id = names[m].getBytes(StandardCharsets.UTF_8);
            for (int v = 0; v < vnodesPerMember; v++, p++) {
                raw[p] = pointHash.point(id, v) ^ Long.MIN_VALUE;
                order[p] = p;
            }
        }
        // p = member * vnodesPerMember + vnode, so ordering by p orders by (member, vnode)
        Arrays.sort(order, Comparator.<Integer>comparingLong(p -> raw[p]).thenComparingInt(p -> p));
        for (int i = 0; i < total; i++) {
            points[i] = raw[order[i]];
            owners[i] = (char) (order[i] / vnodesPerMember);
        }
    }

    private int[] indexBuckets(int buckets) {
        int[] start = new int[buckets + 1];
        int p = 0;
        for (int b = 0; b < buckets; b++) {
            while (p < points.length && bucketOf(points[p] ^ Long.MIN_VALUE) < b) {
                p++;
            }
            start[b] = p;
        }
        start[buckets] = points.length;
        return start;
    }

    final int bucketOf(long hash) {
        return (int) (hash >>> shift);
    }
}
