package dev.dht.node.movement;

import dev.dht.node.ring.Ring;
import java.util.Arrays;

/**
 * Which members a member of S sends a key's record to during a move from S to T (docs/cluster.md, "What a member of
 * S sends, and to whom"): every member m of R_T(key), the first rf(T) members of the key's walk on T, other than
 * the sender, unless m already stands at the same place or earlier in the key's walk on S. Then for every
 * f <= rf(T) the first f replicas in T hold at least as many copies of any write as the first f in S did.
 *
 * <p>Only the first rf(T) places of the key's walk on S matter: a member further along (or absent) stands later
 * than any place j &lt; rf(T) in T, so it gets the record either way. The plan reads that prefix (the ring's
 * precomputed table) instead of S's whole walk, which costs O(N^2) per key past the table's depth: 52 µs a key at
 * 100 members and 1.5 ms at 1,000, against about 60-140 ns for the prefix (docs/benchmarks/scale-sim.md).
 * {@link #targets} reuses scratch arrays: one plan per streaming thread.
 */
final class MovePlan {
    private final Ring s;
    private final Ring t;
    private final int rfT;
    /** T member index -> S member index, or -1 for a member new in T. */
    private final int[] tToS;

    private final int selfInT;
    private final int[] walkS; // the first min(rfT, |S|) members of the key's walk on S
    private final int[] positionInS; // S member index -> its place in walkS, or MAX_VALUE when not in it
    private final int[] walkT;

    /**
     * @param s    ring of the stable set
     * @param t    ring of the target set
     * @param rfT  the replication factor in T
     * @param self the sending member (never a target)
     */
    MovePlan(Ring s, Ring t, int rfT, String self) {
        this.s = s;
        this.t = t;
        this.rfT = rfT;
        this.tToS = new int[t.size()];
        for (int i = 0; i < t.size(); i++) {
            tToS[i] = s.indexOf(t.member(i));
        }
        this.selfInT = t.indexOf(self);
        this.walkS = new int[Math.min(rfT, s.size())];
        this.positionInS = new int[s.size()];
        Arrays.fill(positionInS, Integer.MAX_VALUE);
        this.walkT = new int[rfT];
    }

    /**
     * The T member indexes this key's record goes to, written into out; returns how many. Not thread-safe (one
     * plan per streaming thread).
     */
    int targets(byte[] key, int[] out) {
        return targets(Ring.keyHash(key), out);
    }

    /** {@link #targets(byte[], int[])} for a key already hashed with {@link Ring#keyHash(byte[])}. */
    int targets(long hash, int[] out) {
        s.replicaIndexes(hash, walkS.length, walkS);
        for (int i = 0; i < walkS.length; i++) {
            positionInS[walkS[i]] = i;
        }
        t.replicaIndexes(hash, rfT, walkT);
        int n = 0;
        for (int j = 0; j < rfT; j++) {
            int m = walkT[j];
            if (m == selfInT) {
                continue;
            }
            int inS = tToS[m];
            if (inS < 0 || positionInS[inS] > j) {
                out[n++] = m;
            }
        }
        for (int member : walkS) {
            positionInS[member] = Integer.MAX_VALUE;
        }
        return n;
    }

    String member(int tIndex) {
        return t.member(tIndex);
    }

    int targetSize() {
        return t.size();
    }
}
