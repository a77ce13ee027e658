package dev.dht.bench.ring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.ring.Ring;
import dev.dht.node.ring.XxHash64;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The rendezvous baseline SpreadReport compares against must itself be right, or its figures mean nothing. */
class RendezvousPlacementTest {

    @Test
    void picksTheHighestScoringMembersInOrder() {
        List<String> members = k8s(10);
        RendezvousPlacement rendezvous = new RendezvousPlacement(members);
        int[] out = new int[10];
        long[] scores = new long[10];
        for (byte[] key : hexKeys(12, 2_000)) {
            long hash = Ring.keyHash(key);
            List<Integer> expected = IntStream.range(0, 10)
                    .boxed()
                    .sorted(Comparator.comparingLong((Integer i) -> XxHash64.hashLong(
                                    hash, XxHash64.hash(rendezvous.member(i).getBytes(StandardCharsets.UTF_8))))
                            .reversed())
                    .toList();
            for (int from = 1; from <= 10; from++) {
                rendezvous.replicaIndexes(hash, from, out, scores);
                assertThat(IntStream.of(out).limit(from).boxed().toList()).isEqualTo(expected.subList(0, from));
            }
            assertThat(rendezvous.primaryIndex(hash)).isEqualTo(expected.get(0));
        }
    }

    static List<String> k8s(int n) {
        List<String> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            members.add("http://dht-" + i + ".dht-headless.default.svc.cluster.local:8080");
        }
        return members;
    }

    static byte[][] hexKeys(long seed, int count) {
        Random random = new Random(seed);
        byte[][] keys = new byte[count][];
        for (int i = 0; i < count; i++) {
            keys[i] = Long.toHexString(random.nextLong()).getBytes(StandardCharsets.UTF_8);
        }
        return keys;
    }
}
