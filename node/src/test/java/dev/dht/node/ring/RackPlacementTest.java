package dev.dht.node.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Placement with racks (docs/placement.md, "Racks"): properties over random clusters, racks and keys (jqwik shrinks a
 * failure to the smallest cluster that shows it), and the load per member for the layouts of the placement doc.
 */
class RackPlacementTest {
    private static final int KEYS = 200;

    /** Members spread over racks at random (every rack has at least one). */
    record Racked(List<String> members, Map<String, String> racks, int rackCount, int vnodes, long seed) {
        static Racked of(int n, int rackCount, int vnodes, long seed) {
            Random random = new Random(seed);
            List<String> members = new ArrayList<>();
            Map<String, String> racks = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String member = "http://dht-" + i + ".dht-headless.ns" + (seed & 0xff) + ".svc:8080";
                members.add(member);
                // the first rackCount members open a rack each, the rest land anywhere
                racks.put(member, "rack-" + (i < rackCount ? i : random.nextInt(rackCount)));
            }
            return new Racked(members, racks, rackCount, vnodes, seed);
        }

        Ring ring() {
            return new Ring(members, racks, vnodes);
        }

        byte[][] keys() {
            return RingTest.hexKeys(seed, KEYS);
        }

        int rackSize(String rack) {
            return (int) racks.values().stream().filter(rack::equals).count();
        }
    }

    @Provide
    Arbitrary<Racked> clusters() {
        return Combinators.combine(
                        Arbitraries.integers().between(1, 12),
                        Arbitraries.integers().between(1, 12),
                        Arbitraries.integers().between(1, 64),
                        Arbitraries.longs())
                .as((n, racks, vnodes, seed) -> Racked.of(n, Math.min(racks, n), vnodes, seed));
    }

    @Property(tries = 150)
    void everyKeysReplicasSpanMinOfFromAndRacks(@ForAll("clusters") Racked c) {
        Ring ring = c.ring();
        int n = ring.size();
        for (byte[] key : c.keys()) {
            List<String> all = ring.replicasFor(key, n);
            assertThat(all).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(c.members());
            for (int from = 1; from <= n; from++) {
                List<String> replicas = ring.replicasFor(key, from);
                assertThat(replicas).as("the prefix property").isEqualTo(all.subList(0, from));
                assertThat(replicas.stream().map(c.racks()::get).distinct().count())
                        .as("racks of %s", replicas)
                        .isEqualTo(Math.min(from, c.rackCount()));
            }
        }
    }

    @Property(tries = 150)
    void aRackRepeatsOnlyOnceEveryOtherRackHasAsManyReplicasOrNoMoreMembers(@ForAll("clusters") Racked c) {
        Ring ring = c.ring();
        int n = ring.size();
        for (byte[] key : c.keys()) {
            for (int f = 1; f <= n; f++) {
                int from = f;
                Map<String, Integer> perRack = new HashMap<>();
                c.racks().values().forEach(r -> perRack.put(r, 0));
                ring.replicasFor(key, from).forEach(m -> perRack.merge(c.racks().get(m), 1, Integer::sum));
                int most = perRack.values().stream().max(Integer::compare).orElseThrow();
                perRack.forEach((rack, count) -> assertThat(count == c.rackSize(rack) || count >= most - 1)
                        .as("from %d: rack %s holds %d of %s", from, rack, count, perRack)
                        .isTrue());
            }
        }
    }

    @Property(tries = 150)
    void lookupsAgreeWithTheObviousRackWalk(@ForAll("clusters") Racked c) {
        Ring ring = c.ring();
        NaiveRing naive = new NaiveRing(c.members(), c.vnodes());
        int n = ring.size();
        for (byte[] key : c.keys()) {
            assertThat(ring.replicasFor(key, n)).isEqualTo(naive.replicasFor(key, n, c.racks()));
        }
    }

    @Property(tries = 100)
    void withoutRacksOrOneMemberPerRackPlacementIsExactlyTheRackBlindOne(@ForAll("clusters") Racked c) {
        Ring plain = new Ring(c.members(), c.vnodes());
        Map<String, String> ownRack = new HashMap<>();
        c.members().forEach(m -> ownRack.put(m, "own-" + c.members().indexOf(m)));
        Ring perMember = new Ring(c.members(), ownRack, c.vnodes());
        NaiveRing today = new NaiveRing(c.members(), c.vnodes());
        int n = plain.size();
        for (byte[] key : c.keys()) {
            List<String> expected = today.replicasFor(key, n);
            assertThat(plain.replicasFor(key, n)).isEqualTo(expected);
            assertThat(perMember.replicasFor(key, n)).isEqualTo(expected);
            int[] a = new int[n];
            int[] b = new int[n];
            plain.replicaIndexes(Ring.keyHash(key), n, a);
            perMember.replicaIndexes(Ring.keyHash(key), n, b);
            assertThat(b).isEqualTo(a);
        }
    }

    @Property(tries = 30)
    void listsLongerThanThePrecomputedDepthWalkTheSameWay(@ForAll("clusters") Racked c) {
        Ring deep = c.ring();
        Ring shallow = new Ring(c.members(), c.racks(), c.vnodes(), 0, Ring.XXH64_POINTS); // MIN_DEPTH entries
        for (byte[] key : c.keys()) {
            assertThat(shallow.replicasFor(key, deep.size())).isEqualTo(deep.replicasFor(key, deep.size()));
        }
    }

    /**
     * Load per member at RF 3 (exact shares of the key space, no sampling). With as many racks as copies every rack
     * holds one copy of every key: a member's share is 1 / (members in its rack). With fewer racks, every rack
     * holds one and the others go round by round. The table in docs/placement.md, "What unbalanced racks cost".
     */
    @Example
    void loadPerMemberFollowsTheRackSizes() {
        // racks -> each member's expected share, per rack
        Map<List<Integer>, double[]> layouts = new LinkedHashMap<>();
        layouts.put(List.of(2, 2, 2), new double[] {1 / 2.0, 1 / 2.0, 1 / 2.0});
        layouts.put(List.of(1, 3, 3), new double[] {1.0, 1 / 3.0, 1 / 3.0});
        layouts.put(List.of(2, 2, 4), new double[] {1 / 2.0, 1 / 2.0, 1 / 4.0});
        layouts.put(List.of(1, 3), new double[] {1.0, 2 / 3.0});
        for (Map.Entry<List<Integer>, double[]> layout : layouts.entrySet()) {
            List<String> members = new ArrayList<>();
            Map<String, String> racks = new HashMap<>();
            List<Integer> sizes = layout.getKey();
            for (int r = 0; r < sizes.size(); r++) {
                for (int i = 0; i < sizes.get(r); i++) {
                    String m = "http://dht-" + (char) ('a' + r) + "-" + i + ".dht-headless.default.svc:8080";
                    members.add(m);
                    racks.put(m, "zone-" + (char) ('a' + r));
                }
            }
            Ring ring = new Ring(members, racks);
            double[] share = ring.ownership(3);
            Map<String, Double> perRack = new HashMap<>();
            for (int i = 0; i < ring.size(); i++) {
                String rack = ring.rackOf(i);
                double expected = layout.getValue()[rack.charAt(5) - 'a'];
                // the ring's own spread: within 12% of the mean, as RingBalanceTest holds it without racks
                assertThat(share[i]).as("%s: %s", sizes, ring.member(i)).isCloseTo(expected, within(0.12 * expected));
                perRack.merge(rack, share[i], Double::sum);
            }
            for (int r = 0; r < sizes.size(); r++) {
                double copies = layout.getValue()[r] * sizes.get(r);
                assertThat(perRack.get("zone-" + (char) ('a' + r)))
                        .as("%s: copies of each key in rack %d", sizes, r)
                        .isCloseTo(copies, within(1e-9));
            }
        }
    }
}
