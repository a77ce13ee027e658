package dev.dht.node.ring;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The placement rule of {@link Ring}, written the slow, obvious way as a test oracle: every point as an object,
 * sorted by (unsigned point, member, vnode), and a linear walk from the key. No bucket index, no sign trick, no
 * precomputed table: if the two ever disagree, the fast one is wrong.
 */
final class NaiveRing {
    private record Point(long position, String member, int vnode) {}

    private final List<Point> points = new ArrayList<>();
    private final int members;

    NaiveRing(Collection<String> members, int vnodes, Ring.PointHash pointHash) {
        TreeSet<String> distinct = new TreeSet<>(members);
        this.members = distinct.size();
        for (String member : distinct) {
            byte[] id = member.getBytes(StandardCharsets.UTF_8);
            for (int v = 0; v < vnodes; v++) {
                points.add(new Point(pointHash.point(id, v), member, v));
            }
        }
        points.sort((a, b) -> {
            int byPosition = Long.compareUnsigned(a.position(), b.position());
            if (byPosition != 0) {
                return byPosition;
            }
            int byMember = a.member().compareTo(b.member());
            return byMember != 0 ? byMember : Integer.compare(a.vnode(), b.vnode());
        });
    }

    NaiveRing(Collection<String> members, int vnodes) {
        this(members, vnodes, Ring.XXH64_POINTS);
    }

    List<String> replicasFor(byte[] key, int from) {
        return replicasForHash(XxHash64.hash(key), from);
    }

    List<String> replicasForHash(long keyHash, int from) {
        if (from < 1 || from > members) {
            throw new IllegalArgumentException("from " + from);
        }
        int start = 0;
        while (start < points.size() && Long.compareUnsigned(points.get(start).position(), keyHash) < 0) {
            start++;
        }
        List<String> replicas = new ArrayList<>();
        for (int i = 0; replicas.size() < from; i++) {
            String member = points.get((start + i) % points.size()).member();
            if (!replicas.contains(member)) {
                replicas.add(member);
            }
        }
        return replicas;
    }

    /**
     * The rack rule the obvious way: the whole walk (every member once), then a stable sort by each member's round
     * (how many of its rack came before it in the walk), then the first {@code from}.
     */
    List<String> replicasFor(byte[] key, int from, java.util.Map<String, String> racks) {
        List<String> walk = replicasForHash(XxHash64.hash(key), members);
        java.util.Map<String, Integer> seen = new java.util.HashMap<>();
        java.util.Map<String, Integer> round = new java.util.HashMap<>();
        for (String m : walk) {
            round.put(m, seen.merge(racks.get(m), 1, Integer::sum) - 1);
        }
        List<String> sorted = new ArrayList<>(walk);
        sorted.sort(java.util.Comparator.comparingInt(round::get)); // stable: walk order within a round
        return sorted.subList(0, from);
    }
}
