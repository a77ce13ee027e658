package dev.dht.operator.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Members per rack, in the racks' order: how many pods each rack's StatefulSet runs, or how many of them the topology
 * lists. A rack's members are its ordinals {@code 0..count-1}.
 *
 * <p>The rack rules (pure) live here too: {@link #target} says where a scale or a drain ends, {@link #nextToLeave}
 * which member goes next on the way down.
 */
public record Layout(List<String> racks, List<Integer> counts) {

    public Layout {
        racks = List.copyOf(racks);
        counts = List.copyOf(counts);
        if (racks.size() != counts.size()) {
            throw new IllegalArgumentException("racks " + racks + " and counts " + counts + " differ in size");
        }
    }

    public static Layout of(List<String> racks, int... counts) {
        return new Layout(racks, IntStream.of(counts).boxed().toList());
    }

    public static Layout empty(List<String> racks) {
        return new Layout(racks, racks.stream().map(r -> 0).toList());
    }

    /** The implicit rack of a cluster without racks, with {@code count} members. */
    public static Layout single(int count) {
        return of(List.of(""), count);
    }

    public int get(String rack) {
        int i = racks.indexOf(rack);
        return i < 0 ? 0 : counts.get(i);
    }

    public int get(int index) {
        return counts.get(index);
    }

    public int total() {
        return counts.stream().mapToInt(Integer::intValue).sum();
    }

    public Layout with(String rack, int count) {
        var out = new ArrayList<>(counts);
        out.set(racks.indexOf(rack), count);
        return new Layout(racks, out);
    }

    /** Members, rack by rack in order, each rack's by ordinal. */
    public List<Member> members() {
        var out = new ArrayList<Member>();
        for (int i = 0; i < racks.size(); i++) {
            String rack = racks.get(i);
            IntStream.range(0, counts.get(i)).forEach(o -> out.add(new Member(rack, o)));
        }
        return out;
    }

    public boolean contains(Member member) {
        return member.ordinal() < get(member.rack()) && racks.contains(member.rack());
    }

    /** Per rack, the larger of the two counts. */
    public Layout max(Layout other) {
        return new Layout(
                racks,
                IntStream.range(0, racks.size())
                        .mapToObj(i -> Math.max(counts.get(i), other.get(racks.get(i))))
                        .toList());
    }

    /** Largest minus smallest count among the racks not in {@code except}; 0 with fewer than two. */
    public int spread(Set<String> except) {
        var kept = IntStream.range(0, racks.size())
                .filter(i -> !except.contains(racks.get(i)))
                .map(counts::get)
                .toArray();
        return kept.length < 2
                ? 0
                : IntStream.of(kept).max().orElse(0) - IntStream.of(kept).min().orElse(0);
    }

    /**
     * Where the members end up for {@code total} members from this layout: drained racks hold none; the others keep
     * theirs, new members going to the racks with the fewest first (ties: the earlier rack, so an even split gives the
     * first racks the remainder), members leaving from the racks with the most first (ties: the later rack). A new
     * cluster (all zero) thus gets an even split; adding racks to a cluster gives the new ones the new members.
     */
    public Layout target(int total, Set<String> drained) {
        int[] c = counts.stream().mapToInt(Integer::intValue).toArray();
        var open = new ArrayList<Integer>();
        for (int i = 0; i < c.length; i++) {
            if (drained.contains(racks.get(i))) {
                c[i] = 0;
            } else {
                open.add(i);
            }
        }
        if (open.isEmpty()) {
            return new Layout(racks, IntStream.of(c).boxed().toList());
        }
        int sum = IntStream.of(c).sum();
        for (; sum < total; sum++) {
            int pick = open.get(0);
            for (int i : open) {
                if (c[i] < c[pick]) {
                    pick = i;
                }
            }
            c[pick]++;
        }
        for (; sum > total; sum--) {
            int pick = open.get(0);
            for (int i : open) {
                if (c[i] >= c[pick]) {
                    pick = i;
                }
            }
            c[pick]--;
        }
        return new Layout(racks, IntStream.of(c).boxed().toList());
    }

    /**
     * The rack whose member leaves next on the way to {@code target}: among the racks above their target, a drained
     * one first, then the one with the most members (ties: the later rack), i.e. the rack furthest above its share.
     * Empty when no rack is above its target.
     */
    public java.util.Optional<String> nextToLeave(Layout target, Set<String> drained) {
        String pick = null;
        for (int i = 0; i < racks.size(); i++) {
            String rack = racks.get(i);
            if (counts.get(i) <= target.get(rack)) {
                continue;
            }
            if (pick == null) {
                pick = rack;
                continue;
            }
            boolean drainedHere = drained.contains(rack);
            boolean drainedPick = drained.contains(pick);
            if (drainedHere != drainedPick ? drainedHere : counts.get(i) >= get(pick)) {
                pick = rack;
            }
        }
        return java.util.Optional.ofNullable(pick);
    }

    @Override
    public String toString() {
        var out = new StringBuilder();
        for (int i = 0; i < racks.size(); i++) {
            out.append(i == 0 ? "" : ",")
                    .append(racks.get(i).isEmpty() ? "" : racks.get(i) + "=")
                    .append(counts.get(i));
        }
        return out.toString();
    }
}
