package dev.dht.node.ring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The placement properties the scale simulation (make bench-scale-sim, docs/benchmarks/scale-sim.md) and the limits
 * in docs/placement.md rely on, at 100 members with the default 1,024 vnodes, without racks and in 3 racks; exact
 * (arc lengths, no key sampling). Bounds: no member owns more than {@value #HEAVIEST} (racks
 * {@value #HEAVIEST_RACKS}) times the mean share of RF 3 copies; one member joining or leaving changes the holder
 * of 1/N of the copies within {@value #MOVE_TOLERANCE} of it, and nothing else.
 */
class RingScaleTest {
    static final double HEAVIEST = 1.10;
    static final double HEAVIEST_RACKS = 1.15;
    static final double MOVE_TOLERANCE = 0.10;
    static final int N = 100;

    /** Pods as the operator names them: dht-i, or dht-zone-i with racks dealt round-robin over 3 zones. */
    static List<String> members(int n, boolean racks) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(
                    racks
                            ? "http://dht-" + zone(i) + "-" + i / 3 + ".dht-headless.default.svc.cluster.local:8080"
                            : "http://dht-" + i + ".dht-headless.default.svc.cluster.local:8080");
        }
        return out;
    }

    static String zone(int i) {
        return "zone-" + (char) ('a' + i % 3);
    }

    static Map<String, String> racks(int n, boolean racks) {
        Map<String, String> out = new LinkedHashMap<>();
        if (racks) {
            List<String> m = members(n, true);
            for (int i = 0; i < n; i++) {
                out.put(m.get(i), zone(i));
            }
        }
        return out;
    }

    static Ring ring(int n, boolean racks) {
        return new Ring(members(n, racks), racks(n, racks));
    }

    @Test
    void noMemberOfAHundredOwnsMuchMoreOrLessThanItsShare() {
        for (boolean racks : new boolean[] {false, true}) {
            double[] share = ring(N, racks).ownership(3);
            double mean = 3.0 / N;
            double bound = racks ? HEAVIEST_RACKS : HEAVIEST;
            for (int m = 0; m < N; m++) {
                assertThat(share[m] / mean)
                        .as("member %d's share over the mean, racks %s", m, racks)
                        .isBetween(2 - bound, bound);
            }
        }
    }

    @Test
    void oneMemberJoiningOrLeavingAHundredMovesOneNthOfTheCopies() {
        for (boolean racks : new boolean[] {false, true}) {
            Ring hundred = ring(N, racks);
            Ring grown = ring(N + 1, racks);
            Ring shrunk = ring(N - 1, racks);
            String joiner = members(N + 1, racks).get(N);
            String leaver = members(N, racks).get(N - 1);
            assertThat(newCopies(hundred, grown, joiner))
                    .as("a join into %d, racks %s", N, racks)
                    .isBetween((1 - MOVE_TOLERANCE) / (N + 1), (1 + MOVE_TOLERANCE) / (N + 1));
            assertThat(newCopies(hundred, shrunk, null))
                    .as("a leave from %d, racks %s", N, racks)
                    .isBetween((1 - MOVE_TOLERANCE) / N, (1 + MOVE_TOLERANCE) / N);
        }
    }

    /**
     * The fraction of t's RF 3 copies whose member did not hold the key in s, exact: the larger ring's arcs refine
     * the smaller's (its points include them), so both lists are constant on each of its arcs. Without racks a join
     * gives new copies only to the joiner; with racks a member may change rack position, which the bound absorbs.
     */
    static double newCopies(Ring s, Ring t, String joiner) {
        Ring fine = t.size() > s.size() ? t : s;
        int[] before = new int[3];
        int[] after = new int[3];
        double moved = 0;
        int n = fine.arcCount();
        for (int a = 0; a < n; a++) {
            long end = fine.arcEnd(a);
            double weight = ((end - fine.arcEnd(a == 0 ? n - 1 : a - 1)) >>> 11) * 0x1.0p-53;
            s.replicaIndexes(end, 3, before);
            t.replicaIndexes(end, 3, after);
            for (int r = 0; r < 3; r++) {
                String m = t.member(after[r]);
                boolean held = false;
                for (int q = 0; q < 3; q++) {
                    held |= s.member(before[q]).equals(m);
                }
                if (!held) {
                    if (joiner != null && !s.hasRacks()) {
                        assertThat(m).as("a copy moved between old members").isEqualTo(joiner);
                    }
                    moved += weight;
                }
            }
        }
        return moved / 3;
    }
}
