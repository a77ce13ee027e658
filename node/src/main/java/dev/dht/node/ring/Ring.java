package dev.dht.node.ring;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.Set;

/**
 * Which members hold a key: a consistent-hash ring with virtual nodes.
 *
 * <p>The ring is the unsigned 64-bit space. Member {@code m} owns {@code vnodesPerMember} points on it, point
 * {@code i} at {@code XXH64(utf8(m), seed = i)}; a key sits at {@code XXH64(key, seed = 0)}. The replicas of a key
 * are the first {@code from} <em>distinct</em> members met walking clockwise from the key (the first point at or
 * after it, wrapping past the top). Hence:
 * <ul>
 *   <li>placement depends only on the key and the member set: members are sorted before anything else, and points
 *       that collide are ordered by (member, vnode index), so every node builds the same ring from the same set
 *       whatever order it was listed in;</li>
 *   <li>the replicas for a smaller {@code from} are a prefix of those for a larger one: a write at any
 *       {@code from} lands inside the set every read with a larger {@code from} asks, so quorums overlap across
 *       different {@code from} values and a key never has copies outside its first max(from) members (the course's
 *       copy-count tests count exactly those);</li>
 *   <li>adding a member only inserts it into the walk: a key whose list changes gets the new member and loses its
 *       last one, nothing moves between old members, and about 1/(n+1) of all copies move.</li>
 * </ul>
 *
 * <p>Lookups are on every request's path, so the work is done here, once per topology: all keys between two
 * consecutive points (an "arc") share one replica list, so the list of every arc is precomputed. A lookup is a
 * hash, a jump through a bucket index on the hash's top bits, a binary search over the one or two points in that
 * bucket, and a copy out of the table ({@link #replicaIndexes}, allocation-free) or a view of it
 * ({@link #replicasFor(long, int)}, one small object). For very large clusters the table keeps only the first
 * {@code depth} entries per arc (a memory bound) and a longer request walks the ring.
 *
 * <p>Members may belong to racks (failure domains: a rack, a zone). Then the walk takes them round by round, distinct
 * racks first ({@link RackOrder}): a key's replicas span min(from, racks) racks, and the prefix property holds. The
 * points do not depend on racks; only the order of each arc's list does. Without racks (or with one member per
 * rack) every list is exactly the plain walk's.
 *
 * <p>Immutable and thread-safe; a topology change builds a new ring (a few ms even for 10 members x 1024 vnodes).
 * Member ids are compared as given: pass canonical base URLs (as the config package normalises them).
 */
public final class Ring extends RingLayout {
    /**
     * Points per member. The spread of a vnode ring shrinks as 1/sqrt(vnodes); 1024 is the smallest power of two that
     * kept the heaviest node within 10% of the mean in every one of 400 measured clusters (3..10 nodes, 50 sets of
     * names; 512 reached +13%, 256 +18%). It stays cheap: a 10-member ring is about 0.4 MB and builds in about 3 ms,
     * and thanks to the bucket index a lookup takes about 12 ns with the key's hash, 1-2 ns more than with 256
     * points. More points only add memory and build time (both grow linearly) for a smaller gain each time.
     * Figures: docs/benchmarks/ring.md, rebuilt by scripts/bench-ring.sh; the choice: docs/placement.md.
     */
    public static final int DEFAULT_VNODES = 1024;
    /** More points buy almost no spread (it improves as 1/sqrt(vnodes)) and cost memory and build time. */
    public static final int MAX_VNODES = 1 << 16;
    /** At most this many points in all (e.g. 1024 members x 1024 vnodes): bounds a ring to about 30 MB. */
    public static final int MAX_POINTS = 1 << 20;
    /** Member indexes are stored in 16 bits. */
    public static final int MAX_MEMBERS = 1 << 16;
    /** How many precomputed list entries (2 bytes each) a ring may hold before it shortens the per-arc lists. */
    static final int DEFAULT_TABLE_BUDGET = 1 << 20;
    /** Lists are precomputed at least this deep (or to the cluster size), whatever the budget. */
    static final int MIN_DEPTH = 8;

    /** How a member's points are placed; replaceable only in tests (to force collisions). */
    @FunctionalInterface
    interface PointHash {
        long point(byte[] memberUtf8, int vnode);
    }

    static final PointHash XXH64_POINTS = (member, vnode) -> XxHash64.hash(member, 0, member.length, vnode);

    /** A ring of these members with {@link #DEFAULT_VNODES} points each. */
    public Ring(Collection<String> members) {
        this(members, DEFAULT_VNODES);
    }

    /**
     * A ring of these members (duplicates ignored, order irrelevant) with {@code vnodesPerMember} points each.
     *
     * @throws IllegalArgumentException if there are no members, a member is blank, or vnodesPerMember is outside
     *                                  1..{@link #MAX_VNODES}
     */
    public Ring(Collection<String> members, int vnodesPerMember) {
        this(members, Map.of(), vnodesPerMember);
    }

    /**
     * A ring of these members in these racks, with {@link #DEFAULT_VNODES} points each.
     *
     * @param racks each member's rack; empty for no racks (every member its own rack: the plain walk)
     */
    public Ring(Collection<String> members, Map<String, String> racks) {
        this(members, racks, DEFAULT_VNODES);
    }

    /**
     * A ring of these members in these racks.
     *
     * @param racks each member's rack, for every member; empty for no racks
     * @throws IllegalArgumentException as {@link #Ring(Collection, int)}, or if racks is not empty and names no
     *                                  (or a blank) rack for a member
     */
    public Ring(Collection<String> members, Map<String, String> racks, int vnodesPerMember) {
        this(members, racks, vnodesPerMember, DEFAULT_TABLE_BUDGET, XXH64_POINTS);
    }

    Ring(Collection<String> members, int vnodesPerMember, int tableBudget, PointHash pointHash) {
        this(members, Map.of(), vnodesPerMember, tableBudget, pointHash);
    }

    Ring(
            Collection<String> members,
            Map<String, String> racks,
            int vnodesPerMember,
            int tableBudget,
            PointHash pointHash) {
        super(members, racks, vnodesPerMember, tableBudget, pointHash);
    }

    /** The ring coordinate of a key: XXH64 of its bytes, seed 0. Hash once, then use the {@code long} lookups. */
    public static long keyHash(byte[] key) {
        return XxHash64.hash(key);
    }

    /** The first replica of the key (the one {@code from = 1} writes to). */
    public String primaryFor(byte[] key) {
        return names[primaryIndex(keyHash(key))];
    }

    /**
     * The first {@code from} distinct members clockwise from the key (with racks: in rack order, distinct racks
     * first): the key's replicas, in preference order.
     * The list is immutable and, for the same ring and key, a prefix of the list for any larger {@code from}.
     *
     * @throws IllegalArgumentException if {@code from} is outside 1..{@link #size()}
     */
    public List<String> replicasFor(byte[] key, int from) {
        return replicasFor(keyHash(key), from);
    }

    /** {@link #replicasFor(byte[], int)} for a key already hashed with {@link #keyHash(byte[])}. */
    public List<String> replicasFor(long keyHash, int from) {
        checkFrom(from);
        int arc = arcOf(keyHash);
        if (from <= depth) {
            return new ReplicaList(arc * depth, from);
        }
        int[] indexes = new int[from];
        ArcLists.walk(owners, arc, from, rackOrder, indexes);
        String[] result = new String[from];
        for (int i = 0; i < from; i++) {
            result[i] = names[indexes[i]];
        }
        return List.of(result);
    }

    /** The index (see {@link #member(int)}) of the key's first replica. Allocation-free. */
    public int primaryIndex(long keyHash) {
        return owners[arcOf(keyHash)];
    }

    /**
     * Writes the indexes (see {@link #member(int)}) of the key's first {@code from} replicas into
     * {@code out[0..from)}, in preference order. Allocation-free (but for lists longer than the precomputed depth
     * on a ring with racks: clusters of more than 32 members).
     *
     * @throws IllegalArgumentException if {@code from} is outside 1..{@link #size()} or {@code out} is too short
     */
    public void replicaIndexes(long keyHash, int from, int[] out) {
        checkFrom(from);
        if (out.length < from) {
            throw new IllegalArgumentException("out holds " + out.length + " indexes, " + from + " needed");
        }
        int arc = arcOf(keyHash);
        if (from <= depth) {
            for (int i = 0, base = arc * depth; i < from; i++) {
                out[i] = table[base + i];
            }
        } else {
            ArcLists.walk(owners, arc, from, rackOrder, out);
        }
    }

    /** Number of members. */
    public int size() {
        return names.length;
    }

    public int vnodesPerMember() {
        return vnodesPerMember;
    }

    /** The members in canonical (sorted) order; unmodifiable. */
    public Set<String> members() {
        return memberSet;
    }

    /** The member with this index; indexes follow the canonical order, 0..size()-1. */
    public String member(int index) {
        return names[index];
    }

    /** Whether the members are placed by rack (a ring built with racks). */
    public boolean hasRacks() {
        return rackOfMember != null;
    }

    /** The rack of the member with this index, or null on a ring without racks. */
    public String rackOf(int index) {
        Objects.checkIndex(index, names.length);
        return rackOfMember == null ? null : rackOfMember[index];
    }

    /** How many distinct racks the members are in (without racks: one per member). */
    public int rackCount() {
        return rackOfMember == null ? names.length : new RackOrder(rackOfMember).racks();
    }

    /** The index of this member, or -1 if it is not one. */
    public int indexOf(String member) {
        int i = Arrays.binarySearch(names, member);
        return i >= 0 ? i : -1;
    }

    public boolean contains(String member) {
        return indexOf(member) >= 0;
    }

    /**
     * The fraction of the key space for which each member (by index) is among the first {@code from} replicas:
     * exact, from the arc lengths, no sampling. Sums to {@code from}; with perfect balance every entry is
     * {@code from / size()}. For status pages and the spread report.
     */
    public double[] ownership(int from) {
        checkFrom(from);
        double[] share = new double[names.length];
        int[] replicas = new int[from];
        int total = points.length;
        for (int arc = 0; arc < total; arc++) {
            // arc a holds the hashes in (point[a - 1], point[a]]; arc 0 wraps around from the last point
            long length = points[arc] - points[arc == 0 ? total - 1 : arc - 1]; // mod 2^64, as unsigned
            double fraction = arc == 0 && length == 0 ? 1.0 : (length >>> 11) * 0x1.0p-53;
            replicaIndexes(points[arc] ^ Long.MIN_VALUE, from, replicas);
            for (int r = 0; r < from; r++) {
                share[replicas[r]] += fraction;
            }
        }
        return share;
    }

    /**
     * Arcs, one per point: arc {@code a} holds the key hashes in (arcEnd(a - 1), arcEnd(a)] (unsigned), arc 0
     * wrapping around past the top of the space. Every key of an arc has the same replicas (repair compares
     * replicas arc by arc).
     */
    public int arcCount() {
        return points.length;
    }

    /** The last hash of an arc (its point), as an unsigned value. */
    public long arcEnd(int arc) {
        return points[arc] ^ Long.MIN_VALUE;
    }

    /** The arc holding a key hash. */
    public int arcIndex(long keyHash) {
        return arcOf(keyHash);
    }

    /** The first point at or after the hash (clockwise), wrapping to point 0 past the top of the space. */
    private int arcOf(long keyHash) {
        long target = keyHash ^ Long.MIN_VALUE;
        int b = bucketOf(keyHash);
        // every point of an earlier bucket is below the target and every point of a later one above it,
        // so the answer lies in [start[b], start[b + 1]]; buckets hold about one point each
        int lo = bucketStart[b];
        int hi = bucketStart[b + 1];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (points[mid] < target) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo == points.length ? 0 : lo;
    }

    private void checkFrom(int from) {
        if (from < 1 || from > names.length) {
            throw new IllegalArgumentException(
                    "from must be within 1.." + names.length + " (the cluster size), got " + from);
        }
    }

    /** Entries precomputed per arc (tests and the spread report). */
    int precomputedDepth() {
        return depth;
    }

    /** Heap held by this ring's arrays (the member names are shared with the caller), for the spread report. */
    public long approximateBytes() {
        return 16
                + 8L * points.length
                + 16
                + 2L * owners.length
                + 16
                + 4L * bucketStart.length
                + 16
                + 2L * table.length;
    }

    /** One precomputed replica list, read-only: what {@link #replicasFor(long, int)} returns. */
    private final class ReplicaList extends AbstractList<String> implements RandomAccess {
        private final int offset;
        private final int size;

        ReplicaList(int offset, int size) {
            this.offset = offset;
            this.size = size;
        }

        @Override
        public String get(int index) {
            Objects.checkIndex(index, size);
            return names[table[offset + index]];
        }

        @Override
        public int size() {
            return size;
        }
    }

    /** Same members, racks and points: the same placement for every key. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Ring other
                && Arrays.equals(names, other.names)
                && Arrays.equals(rackOfMember, other.rackOfMember)
                && Arrays.equals(points, other.points)
                && Arrays.equals(owners, other.owners);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(names) + Arrays.hashCode(points);
    }

    @Override
    public String toString() {
        return "Ring{" + names.length + " members" + (rackOfMember == null ? "" : " in " + rackCount() + " racks")
                + " x " + vnodesPerMember + " vnodes}";
    }
}
