package dev.dht.bench.ring;

import dev.dht.node.ring.XxHash64;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.TreeSet;

/**
 * Rendezvous (highest-random-weight) hashing, the alternative {@link SpreadReport} measures the ring against:
 * every member scores every key with {@code XXH64(keyHash, seed = XXH64(member))} and the {@code from} highest
 * scores hold it. Exact spread and minimal movement with no tables at all, but O(members) work per lookup.
 * Not used to serve requests.
 */
final class RendezvousPlacement {
    private final String[] names;
    private final long[] memberSeeds;

    RendezvousPlacement(Collection<String> members) {
        this.names = new TreeSet<>(members).toArray(new String[0]);
        this.memberSeeds = new long[names.length];
        for (int i = 0; i < names.length; i++) {
            memberSeeds[i] = XxHash64.hash(names[i].getBytes(StandardCharsets.UTF_8));
        }
    }

    int size() {
        return names.length;
    }

    String member(int index) {
        return names[index];
    }

    int primaryIndex(long keyHash) {
        int best = 0;
        long bestScore = XxHash64.hashLong(keyHash, memberSeeds[0]);
        for (int i = 1; i < memberSeeds.length; i++) {
            long score = XxHash64.hashLong(keyHash, memberSeeds[i]);
            if (score > bestScore) {
                bestScore = score;
                best = i;
            }
        }
        return best;
    }

    /** The {@code from} best-scoring members, best first, into {@code out}; {@code scores} is scratch space. */
    void replicaIndexes(long keyHash, int from, int[] out, long[] scores) {
        int count = 0;
        long cutoff = Long.MIN_VALUE; // the lowest score kept, once the list is full
        for (int i = 0; i < memberSeeds.length; i++) {
            long score = XxHash64.hashLong(keyHash, memberSeeds[i]);
            if (count == from && score <= cutoff) {
                continue;
            }
            int j = count < from ? count++ : from - 1; // insertion sort into the top list, dropping the last
            while (j > 0 && scores[j - 1] < score) {
                scores[j] = scores[j - 1];
                out[j] = out[j - 1];
                j--;
            }
            scores[j] = score;
            out[j] = i;
            cutoff = scores[count - 1];
        }
    }
}
