package dev.dht.node.ring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Ring properties over many random clusters (seeded, so a failure names the seed that reproduces it). Written as
 * plain JUnit loops because node/ has no jqwik dependency yet; each loop is what a jqwik {@code @Property} with
 * {@code @ForAll} member sets, vnode counts and keys would run.
 */
class RingPropertiesTest {
    private static final long SEED = Long.getLong("dht.ring.seed", 0x5EED_0001L);
    private static final int TRIALS = 150;
    private static final int KEYS = 300;

    /** A random cluster: 1..12 distinct members of a random naming style, 1..64 vnodes each. */
    private record Cluster(List<String> members, int vnodes, long seed) {
        static Cluster random(long seed) {
            Random random = new Random(seed);
            int n = 1 + random.nextInt(12);
            int style = random.nextInt(3);
            String namespace = "ns" + random.nextInt(1000);
            Set<String> members = new LinkedHashSet<>();
            while (members.size() < n) {
                members.add(
                        switch (style) {
                            case 0 ->
                                "http://dht-" + random.nextInt(64) + ".dht-headless." + namespace
                                        + ".svc.cluster.local:8080";
                            case 1 ->
                                "http://10." + random.nextInt(256) + "." + random.nextInt(256) + "."
                                        + random.nextInt(256) + ":8080";
                            default -> "http://localhost:" + (1024 + random.nextInt(60_000));
                        });
            }
            return new Cluster(new ArrayList<>(members), 1 + random.nextInt(64), seed);
        }

        Ring ring() {
            return new Ring(members, vnodes);
        }

        byte[][] keys() {
            Random random = new Random(~seed);
            byte[][] keys = new byte[KEYS][];
            for (int i = 0; i < KEYS; i++) {
                String id = random.nextBoolean() ? Long.toHexString(random.nextLong()) : "key" + random.nextInt();
                keys[i] = RingTest.bytes(id);
            }
            return keys;
        }

        String describe() {
            return "seed " + seed + ": " + members.size() + " members x " + vnodes + " vnodes";
        }
    }

    private static List<Cluster> clusters() {
        List<Cluster> clusters = new ArrayList<>();
        for (int trial = 0; trial < TRIALS; trial++) {
            clusters.add(Cluster.random(SEED + trial));
        }
        return clusters;
    }

    @Test
    void ownersDependOnlyOnTheKeyAndTheMemberSet() {
        for (Cluster cluster : clusters()) {
            Ring ring = cluster.ring();
            List<String> shuffled = new ArrayList<>(cluster.members());
            Collections.shuffle(shuffled, new Random(cluster.seed()));
            Ring fromShuffled = new Ring(new HashSet<>(shuffled), cluster.vnodes());
            assertThat(fromShuffled).as(cluster.describe()).isEqualTo(ring);
            int n = ring.size();
            for (byte[] key : cluster.keys()) {
                assertThat(fromShuffled.replicasFor(key, n))
                        .as(cluster.describe())
                        .isEqualTo(ring.replicasFor(key, n));
            }
        }
    }

    @Test
    void everyReplicaListHoldsFromDistinctMembersAndSmallerListsArePrefixes() {
        for (Cluster cluster : clusters()) {
            Ring ring = cluster.ring();
            int n = ring.size();
            for (byte[] key : cluster.keys()) {
                List<String> all = ring.replicasFor(key, n);
                assertThat(all)
                        .as(cluster.describe())
                        .doesNotHaveDuplicates()
                        .containsExactlyInAnyOrderElementsOf(cluster.members());
                for (int from = 1; from <= n; from++) {
                    assertThat(ring.replicasFor(key, from))
                            .as(cluster.describe())
                            .hasSize(from)
                            .isEqualTo(all.subList(0, from));
                }
            }
        }
    }

    @Test
    void aJoiningMemberIsOnlyInsertedIntoReplicaLists() {
        // Joining never moves a copy between old members: each list either stays the same or gets the new member
        // at some position, the rest keeping their order, and drops its last entry.
        for (Cluster cluster : clusters()) {
            Ring before = cluster.ring();
            String joiner = "http://joiner-" + cluster.seed() + ":8080";
            List<String> grown = new ArrayList<>(cluster.members());
            grown.add(joiner);
            Ring after = new Ring(grown, cluster.vnodes());
            int n = before.size();
            for (byte[] key : cluster.keys()) {
                List<String> old = before.replicasFor(key, n);
                List<String> now = after.replicasFor(key, n + 1);
                List<String> withoutJoiner = new ArrayList<>(now);
                withoutJoiner.remove(joiner);
                assertThat(withoutJoiner).as(cluster.describe()).isEqualTo(old);
                for (int from = 1; from <= n; from++) {
                    List<String> oldPrefix = old.subList(0, from);
                    List<String> newPrefix = after.replicasFor(key, from);
                    if (!newPrefix.contains(joiner)) {
                        assertThat(newPrefix).as(cluster.describe()).isEqualTo(oldPrefix);
                    } else {
                        assertThat(newPrefix.stream()
                                        .filter(m -> !m.equals(joiner))
                                        .toList())
                                .as(cluster.describe())
                                .isEqualTo(oldPrefix.subList(0, from - 1));
                    }
                }
            }
        }
    }

    @Test
    void aLeavingMemberOnlyGivesUpItsOwnCopies() {
        for (Cluster cluster : clusters()) {
            if (cluster.members().size() < 2) {
                continue;
            }
            Ring before = cluster.ring();
            String leaver = cluster.members()
                    .get(new Random(cluster.seed()).nextInt(cluster.members().size()));
            List<String> shrunk = new ArrayList<>(cluster.members());
            shrunk.remove(leaver);
            Ring after = new Ring(shrunk, cluster.vnodes());
            int n = before.size();
            for (byte[] key : cluster.keys()) {
                List<String> old = new ArrayList<>(before.replicasFor(key, n));
                old.remove(leaver);
                assertThat(after.replicasFor(key, n - 1)).as(cluster.describe()).isEqualTo(old);
                if (!before.primaryFor(key).equals(leaver)) {
                    assertThat(after.primaryFor(key)).as(cluster.describe()).isEqualTo(before.primaryFor(key));
                }
            }
        }
    }

    @Test
    void removingAndReAddingAMemberRestoresEveryPlacement() {
        for (Cluster cluster : clusters()) {
            Ring original = cluster.ring();
            String member = cluster.members().get(0);
            List<String> without = new ArrayList<>(cluster.members());
            without.remove(member);
            if (without.isEmpty()) {
                continue;
            }
            Ring shrunk = new Ring(without, cluster.vnodes());
            List<String> readded = new ArrayList<>(without);
            readded.add(member); // a different insertion order, on purpose
            Ring restored = new Ring(readded, cluster.vnodes());
            assertThat(restored).as(cluster.describe()).isEqualTo(original).isNotEqualTo(shrunk);
            int n = original.size();
            for (byte[] key : cluster.keys()) {
                assertThat(restored.replicasFor(key, n)).as(cluster.describe()).isEqualTo(original.replicasFor(key, n));
            }
        }
    }

    @Test
    void fastLookupsAgreeWithTheObviousImplementation() {
        for (Cluster cluster : clusters()) {
            Ring ring = cluster.ring();
            NaiveRing naive = new NaiveRing(cluster.members(), cluster.vnodes());
            int n = ring.size();
            for (byte[] key : cluster.keys()) {
                assertThat(ring.replicasFor(key, n)).as(cluster.describe()).isEqualTo(naive.replicasFor(key, n));
            }
        }
    }
}
