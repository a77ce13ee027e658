package dev.dht.node.movement;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.ring.Ring;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What each member of S sends during a move (docs/cluster.md, "What a member of S sends"). The property the
 * protocol rests on, checked exhaustively per key on random moves: for every write at ack/from with from at most
 * the factor, stored on ANY ack of its first from replicas in S, after every holder sent its copies, every read
 * prefix of T (the first f replicas, from <= f <= rf(T)) holds at least ack copies, so every read with
 * ack + ack' > f meets one.
 */
class MovePlanTest {
    private static final int VNODES = 64; // placement is the same function at any count; small keeps it quick

    private static List<String> members(int n, int offset) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add("http://node-" + (i + offset) + ":8080");
        }
        return out;
    }

    @Test
    void everyReadPrefixOfTheTargetHoldsAsManyCopiesAsTheWriteHad() {
        Random random = new Random(12);
        int moves = 0;
        for (int round = 0; round < 60; round++) {
            List<String> s = members(2 + random.nextInt(5), 0);
            List<String> t = new ArrayList<>(s);
            int change = random.nextInt(4);
            switch (change) {
                case 0 -> t.addAll(members(1 + random.nextInt(2), 100)); // grow
                case 1 -> { // shrink
                    int remove = 1 + random.nextInt(Math.max(1, s.size() - 1));
                    for (int i = 0; i < remove && t.size() > 1; i++) {
                        t.remove(random.nextInt(t.size()));
                    }
                }
                case 2 -> { // replace one
                    t.remove(random.nextInt(t.size()));
                    t.add("http://node-200:8080");
                }
                default -> { // grow and shrink at once
                    t.remove(random.nextInt(t.size()));
                    t.addAll(members(2, 300));
                }
            }
            if (new HashSet<>(t).equals(new HashSet<>(s))) {
                continue;
            }
            int option = random.nextInt(4); // 0: the factor is each set's size (the default), else 1..3
            Ring ringS = new Ring(s, VNODES);
            Ring ringT = new Ring(t, VNODES);
            int rfS = option == 0 ? s.size() : Math.min(option, s.size());
            int rfT = option == 0 ? t.size() : Math.min(option, t.size());
            checkMove(ringS, ringT, rfS, rfT, random);
            moves++;
        }
        assertThat(moves).isGreaterThan(40);
    }

    @Test
    void movesThatChangeRacksKeepEveryReadPrefixAsFull() {
        // turning racks on, adding a rack, moving a member between racks, racks off: the same property
        Random random = new Random(49);
        for (int round = 0; round < 40; round++) {
            List<String> members = members(3 + random.nextInt(4), 0);
            java.util.Map<String, String> before = racks(members, round % 4 == 0 ? 0 : 1 + random.nextInt(3), random);
            java.util.Map<String, String> after = switch (round % 4) {
                case 0 -> racks(members, 1 + random.nextInt(3), random); // racks turned on
                case 1 -> racks(members, 0, random); // racks off
                case 2 -> { // one member moves to another (maybe new) rack
                    java.util.Map<String, String> moved = new java.util.HashMap<>(before);
                    moved.put(members.get(random.nextInt(members.size())), "rack-" + random.nextInt(4));
                    yield moved;
                }
                default -> racks(members, 1 + random.nextInt(4), random); // racks laid out anew
            };
            if (before.equals(after)) {
                continue;
            }
            int rf = Math.min(1 + random.nextInt(3), members.size());
            checkMove(new Ring(members, before, VNODES), new Ring(members, after, VNODES), rf, rf, random);
        }
    }

    /** Each member in one of n racks at random (n = 0: no racks). */
    private static java.util.Map<String, String> racks(List<String> members, int n, Random random) {
        java.util.Map<String, String> racks = new java.util.HashMap<>();
        if (n > 0) {
            members.forEach(m -> racks.put(m, "rack-" + random.nextInt(n)));
        }
        return racks;
    }

    private static void checkMove(Ring ringS, Ring ringT, int rfS, int rfT, Random random) {
        for (int k = 0; k < 300; k++) {
            byte[] key = ("key" + random.nextLong()).getBytes(StandardCharsets.UTF_8);
            List<String> walkS = ringS.replicasFor(key, ringS.size());
            List<String> walkT = ringT.replicasFor(key, ringT.size());
            for (int from = 1; from <= rfS; from++) {
                List<String> writeSet = walkS.subList(0, from);
                for (int ack = 1; ack <= from; ack++) {
                    for (Set<String> holders : subsets(writeSet, ack)) {
                        Set<String> after = new HashSet<>(holders);
                        for (String sender : holders) { // every holder sends (all old replicas, not one)
                            MovePlan plan = new MovePlan(ringS, ringT, rfT, sender);
                            int[] out = new int[ringT.size()];
                            int n = plan.targets(key, out);
                            for (int i = 0; i < n; i++) {
                                after.add(ringT.member(out[i]));
                            }
                        }
                        for (int f = from; f <= rfT; f++) {
                            long copies = walkT.subList(0, f).stream()
                                    .filter(after::contains)
                                    .count();
                            assertThat(copies)
                                    .as(
                                            "S %s rf %d -> T %s rf %d, write %d/%d on %s, read prefix %d of %s",
                                            ringS.members(), rfS, ringT.members(), rfT, ack, from, holders, f, walkT)
                                    .isGreaterThanOrEqualTo(ack);
                        }
                    }
                }
            }
        }
    }

    private static List<Set<String>> subsets(List<String> of, int size) {
        List<Set<String>> out = new ArrayList<>();
        int n = of.size();
        for (int mask = 0; mask < 1 << n; mask++) {
            if (Integer.bitCount(mask) == size) {
                Set<String> s = new HashSet<>();
                for (int i = 0; i < n; i++) {
                    if ((mask & 1 << i) != 0) {
                        s.add(of.get(i));
                    }
                }
                out.add(s);
            }
        }
        return out;
    }

    @Test
    void atAHundredMembersThePlanIsTheOneTheWholeWalkDefines() {
        // the plan reads only the first rf(T) places of S's walk (the whole walk cost O(N^2) a key at this size);
        // the rule it implements is stated on the whole walk, so compare with that, joining, leaving, with racks
        Random random = new Random(55);
        List<String> s = members(100, 0);
        java.util.Map<String, String> racks = racks(s, 3, random);
        List<String> grown = new ArrayList<>(s);
        grown.add("http://node-500:8080");
        java.util.Map<String, String> grownRacks = new java.util.HashMap<>(racks);
        grownRacks.put("http://node-500:8080", "rack-1");
        List<String> shrunk = s.subList(0, 99);
        int compared = 0;
        for (boolean withRacks : new boolean[] {false, true}) {
            Ring ringS = new Ring(s, withRacks ? racks : java.util.Map.of(), VNODES);
            for (Ring ringT : List.of(
                    new Ring(grown, withRacks ? grownRacks : java.util.Map.of(), VNODES),
                    new Ring(shrunk, withRacks ? racks : java.util.Map.of(), VNODES))) {
                for (int k = 0; k < 400; k++) {
                    byte[] key = ("key" + random.nextLong()).getBytes(StandardCharsets.UTF_8);
                    List<String> walkS = ringS.replicasFor(key, ringS.size());
                    List<String> rT = ringT.replicasFor(key, 3);
                    for (String sender : walkS.subList(0, 3)) {
                        Set<String> expected = new HashSet<>();
                        for (int j = 0; j < 3; j++) {
                            String m = rT.get(j);
                            if (!m.equals(sender) && (!walkS.contains(m) || walkS.indexOf(m) > j)) {
                                expected.add(m);
                            }
                        }
                        int[] out = new int[ringT.size()];
                        int n = new MovePlan(ringS, ringT, 3, sender).targets(key, out);
                        Set<String> got = new HashSet<>();
                        for (int i = 0; i < n; i++) {
                            got.add(ringT.member(out[i]));
                        }
                        assertThat(got)
                                .as("%s sends %s", sender, new String(key, StandardCharsets.UTF_8))
                                .isEqualTo(expected)
                                .hasSize(n);
                        compared += expected.isEmpty() ? 0 : 1;
                    }
                }
            }
        }
        assertThat(compared).as("keys that move at all").isGreaterThan(20);
    }

    @Test
    void growingSendsOnlyToTheNewMembersAndNeverToItself() {
        List<String> s = members(3, 0);
        List<String> t = new ArrayList<>(s);
        t.addAll(members(2, 100));
        Ring ringS = new Ring(s, VNODES);
        Ring ringT = new Ring(t, VNODES);
        int sent = 0;
        for (String sender : s) {
            MovePlan plan = new MovePlan(ringS, ringT, 3, sender);
            int[] out = new int[5];
            for (int k = 0; k < 2000; k++) {
                byte[] key = ("k" + k).getBytes(StandardCharsets.UTF_8);
                int n = plan.targets(key, out);
                for (int i = 0; i < n; i++) {
                    String target = ringT.member(out[i]);
                    assertThat(target).isNotEqualTo(sender).isIn(members(2, 100));
                    assertThat(ringT.replicasFor(key, 3)).contains(target);
                    sent++;
                }
            }
        }
        // each key's new replicas in T (about 2 x 3/5 of them on average) get it from each of the 3 senders
        assertThat(sent).isBetween(3 * 2000 * 2 * 3 / 5 * 8 / 10, 3 * 2000 * 2 * 3 / 5 * 12 / 10);
    }

    @Test
    void sameMembersSendNothing() {
        List<String> s = members(4, 0);
        Ring ring = new Ring(s, VNODES);
        MovePlan plan = new MovePlan(ring, new Ring(s, VNODES), 3, s.get(0));
        int[] out = new int[4];
        for (int k = 0; k < 1000; k++) {
            assertThat(plan.targets(("k" + k).getBytes(StandardCharsets.UTF_8), out))
                    .isZero();
        }
    }
}
