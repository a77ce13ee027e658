package dev.dht.node.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RingTest {

    static List<String> k8s(int n) {
        List<String> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            members.add("http://dht-" + i + ".dht-headless.default.svc.cluster.local:8080");
        }
        return members;
    }

    static List<String> local(int n) {
        List<String> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            members.add("http://localhost:" + (8080 + i));
        }
        return members;
    }

    static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** Ids like the course tests send: Long.toHexString of a random long. */
    static byte[][] hexKeys(long seed, int count) {
        Random random = new Random(seed);
        byte[][] keys = new byte[count][];
        for (int i = 0; i < count; i++) {
            keys[i] = bytes(Long.toHexString(random.nextLong()));
        }
        return keys;
    }

    @Test
    void placesKeysExactlyLikeTheObviousImplementation() {
        for (List<String> members : List.of(local(1), local(3), k8s(5), k8s(10))) {
            for (int vnodes : new int[] {1, 7, 64}) {
                Ring ring = new Ring(members, vnodes);
                NaiveRing naive = new NaiveRing(members, vnodes);
                for (byte[] key : hexKeys(vnodes, 500)) {
                    assertThat(ring.replicasFor(key, members.size()))
                            .as("%d members, %d vnodes, key %s", members.size(), vnodes, new String(key))
                            .isEqualTo(naive.replicasFor(key, members.size()));
                }
            }
        }
    }

    @Test
    void placementIsPinned() {
        // Placement is part of the on-disk format: a change remaps the keys of every running cluster on upgrade.
        // If this fails on purpose, the release needs a data migration, not a new expected value.
        Ring local = new Ring(local(3));
        assertThat(local.replicasFor(bytes("key"), 3))
                .containsExactly("http://localhost:8082", "http://localhost:8081", "http://localhost:8080");
        assertThat(local.replicasFor(bytes("deadbeef"), 3))
                .containsExactly("http://localhost:8080", "http://localhost:8081", "http://localhost:8082");
        assertThat(local.replicasFor(bytes("abc"), 3))
                .containsExactly("http://localhost:8081", "http://localhost:8080", "http://localhost:8082");
        Ring k8s = new Ring(k8s(5));
        assertThat(k8s.replicasFor(bytes("triple2"), 5))
                .containsExactly(
                        "http://dht-2.dht-headless.default.svc.cluster.local:8080",
                        "http://dht-3.dht-headless.default.svc.cluster.local:8080",
                        "http://dht-0.dht-headless.default.svc.cluster.local:8080",
                        "http://dht-4.dht-headless.default.svc.cluster.local:8080",
                        "http://dht-1.dht-headless.default.svc.cluster.local:8080");
        assertThat(Ring.keyHash(bytes("abc"))).isEqualTo(0x44BC2CF5AD770999L); // the key's coordinate is plain XXH64
    }

    @Test
    void theOrderOfTheMemberSetDoesNotMatter() {
        List<String> members = k8s(7);
        Ring sorted = new Ring(members);
        List<String> reversed = new ArrayList<>(members);
        java.util.Collections.reverse(reversed);
        for (Ring other : List.of(
                new Ring(reversed),
                new Ring(new HashSet<>(members)),
                new Ring(new LinkedHashSet<>(reversed)),
                new Ring(concat(members, members)))) {
            assertThat(other).isEqualTo(sorted).hasSameHashCodeAs(sorted);
            for (byte[] key : hexKeys(3, 2_000)) {
                assertThat(other.replicasFor(key, 7)).isEqualTo(sorted.replicasFor(key, 7));
            }
        }
    }

    @Test
    void membersAreSortedAndIndexedInThatOrder() {
        Ring ring = new Ring(List.of("http://c:1", "http://a:1", "http://b:1"), 8);
        assertThat(ring.members()).containsExactly("http://a:1", "http://b:1", "http://c:1");
        assertThat(ring.size()).isEqualTo(3);
        assertThat(ring.vnodesPerMember()).isEqualTo(8);
        for (int i = 0; i < 3; i++) {
            assertThat(ring.indexOf(ring.member(i))).isEqualTo(i);
        }
        assertThat(ring.indexOf("http://d:1")).isEqualTo(-1);
        assertThat(ring.contains("http://b:1")).isTrue();
        assertThat(ring.contains("http://b:1/")).isFalse(); // ids are compared as given
        assertThatThrownBy(() -> ring.members().add("http://d:1")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(ring).hasToString("Ring{3 members x 8 vnodes}");
    }

    @Test
    void indexLookupsAgreeWithNameLookups() {
        Ring ring = new Ring(k8s(6), 32);
        int[] out = new int[6];
        for (byte[] key : hexKeys(4, 2_000)) {
            long hash = Ring.keyHash(key);
            List<String> names = ring.replicasFor(key, 6);
            ring.replicaIndexes(hash, 6, out);
            assertThat(Arrays.stream(out).mapToObj(ring::member).toList()).isEqualTo(names);
            assertThat(ring.primaryIndex(hash)).isEqualTo(out[0]);
            assertThat(ring.primaryFor(key)).isEqualTo(names.get(0));
            assertThat(ring.replicasFor(hash, 4)).isEqualTo(names.subList(0, 4));
        }
    }

    @Test
    void replicaListsAreReadOnly() {
        List<String> replicas = new Ring(local(3)).replicasFor(bytes("key"), 2);
        assertThatThrownBy(() -> replicas.add("http://x:1")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> replicas.set(0, "http://x:1")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> replicas.get(2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(replicas).isEqualTo(List.of("http://localhost:8082", "http://localhost:8081"));
    }

    @Test
    void aSingleMemberHoldsEverything() {
        Ring ring = new Ring(Set.of("http://only:8080"), 1);
        for (byte[] key : hexKeys(5, 100)) {
            assertThat(ring.replicasFor(key, 1)).containsExactly("http://only:8080");
        }
        assertThat(ring.ownership(1)).containsExactly(1.0);
    }

    @Test
    void collidingPointsAreBrokenByMemberThenVnodeSoEveryNodeAgrees() {
        // 4 distinct positions shared by every member: each position is a 5-way tie
        Ring.PointHash colliding = (member, vnode) -> (vnode % 4) * 0x4000_0000_0000_0000L;
        List<String> members = local(5);
        List<String> shuffled = new ArrayList<>(members);
        java.util.Collections.shuffle(shuffled, new Random(6));
        Ring ring = new Ring(members, 8, Ring.DEFAULT_TABLE_BUDGET, colliding);
        Ring other = new Ring(shuffled, 8, Ring.DEFAULT_TABLE_BUDGET, colliding);
        NaiveRing naive = new NaiveRing(members, 8, colliding);
        for (byte[] key : hexKeys(7, 1_000)) {
            assertThat(ring.replicasFor(key, 5))
                    .isEqualTo(naive.replicasFor(key, 5))
                    .isEqualTo(other.replicasFor(key, 5));
            // the first member in canonical order wins every tie
            assertThat(ring.primaryFor(key)).isEqualTo("http://localhost:8080");
        }
        Ring allEqual = new Ring(members, 3, Ring.DEFAULT_TABLE_BUDGET, (member, vnode) -> 42L);
        assertThat(allEqual.replicasFor(bytes("any"), 5)).isEqualTo(members);
        assertThat(allEqual.ownership(2)).containsExactly(1.0, 1.0, 0.0, 0.0, 0.0);
    }

    @Test
    void listsLongerThanThePrecomputedTableWalkTheRing() {
        List<String> members = k8s(20);
        Ring shallow = new Ring(members, 16, 0, Ring.XXH64_POINTS); // no budget: only MIN_DEPTH entries per arc
        assertThat(shallow.precomputedDepth()).isEqualTo(Ring.MIN_DEPTH);
        Ring deep = new Ring(members, 16);
        assertThat(deep.precomputedDepth()).isEqualTo(20);
        NaiveRing naive = new NaiveRing(members, 16);
        int[] out = new int[20];
        for (byte[] key : hexKeys(8, 1_000)) {
            List<String> all = naive.replicasFor(key, 20);
            for (int from : new int[] {1, Ring.MIN_DEPTH, Ring.MIN_DEPTH + 1, 20}) {
                assertThat(shallow.replicasFor(key, from)).isEqualTo(all.subList(0, from));
                assertThat(deep.replicasFor(key, from)).isEqualTo(all.subList(0, from));
                shallow.replicaIndexes(Ring.keyHash(key), from, out);
                assertThat(Arrays.stream(out, 0, from).mapToObj(shallow::member).toList())
                        .isEqualTo(all.subList(0, from));
            }
        }
    }

    @Test
    void ownershipIsTheShareOfKeysEachMemberGets() {
        Ring ring = new Ring(k8s(5), 64);
        double[] primaries = ring.ownership(1);
        double[] copies = ring.ownership(3);
        assertThat(Arrays.stream(primaries).sum()).isCloseTo(1.0, within(1e-9));
        assertThat(Arrays.stream(copies).sum()).isCloseTo(3.0, within(1e-9));
        byte[][] keys = hexKeys(9, 400_000);
        long[] primaryCounts = new long[5];
        long[] copyCounts = new long[5];
        int[] out = new int[3];
        for (byte[] key : keys) {
            ring.replicaIndexes(Ring.keyHash(key), 3, out);
            primaryCounts[out[0]]++;
            for (int r : out) {
                copyCounts[r]++;
            }
        }
        for (int m = 0; m < 5; m++) {
            // 400k keys: sampling sd of a share is below 0.001
            assertThat((double) primaryCounts[m] / keys.length).isCloseTo(primaries[m], within(0.005));
            assertThat((double) copyCounts[m] / keys.length).isCloseTo(copies[m], within(0.005));
        }
    }

    @Test
    void equalityIsSameMembersAndSamePoints() {
        assertThat(new Ring(local(3), 16)).isEqualTo(new Ring(local(3), 16));
        assertThat(new Ring(local(3), 16)).isNotEqualTo(new Ring(local(3), 17));
        assertThat(new Ring(local(3), 16)).isNotEqualTo(new Ring(local(4), 16));
        assertThat(new Ring(local(3))).isEqualTo(new Ring(local(3), Ring.DEFAULT_VNODES));
    }

    @ParameterizedTest(name = "from = {0}")
    @ValueSource(ints = {-1, 0, 4})
    void rejectsAReplicaCountOutsideOneToTheClusterSize(int from) {
        Ring ring = new Ring(local(3));
        assertThatThrownBy(() -> ring.replicasFor(bytes("key"), from))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1..3");
        assertThatThrownBy(() -> ring.replicaIndexes(1L, from, new int[8]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1..3");
        assertThatThrownBy(() -> ring.ownership(from)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsBadRingsAndBadArguments() {
        assertThatThrownBy(() -> new Ring(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one member");
        assertThatThrownBy(() -> new Ring(List.of("http://a:1", " ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        assertThatThrownBy(() -> new Ring(Arrays.asList("http://a:1", null)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Ring(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new Ring(local(3), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("vnodes");
        assertThatThrownBy(() -> new Ring(local(3), Ring.MAX_VNODES + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Ring(local(32), Ring.MAX_VNODES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("points");
        Ring ring = new Ring(local(3));
        assertThatThrownBy(() -> ring.replicaIndexes(1L, 3, new int[2]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3 needed");
        assertThatThrownBy(() -> ring.replicasFor((byte[]) null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> ring.primaryFor(null)).isInstanceOf(NullPointerException.class);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
