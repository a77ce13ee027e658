package dev.dht.node.cluster;

import dev.dht.node.cluster.ClockSkewScenarios.Quorums;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes whose clocks disagree: node 0 runs 5 s ahead, node 1 5 s behind, node 2 on time (no course
 * scenario; the course runs every node on one clock). Conflicting writes one right after the other through the
 * fast and the slow node still resolve as the client issued them.
 */
class ClockSkewIT {
    private static final long[] OFFSETS_MS = {5000, -5000, 0};
    private static final int FAST = 0;
    private static final int SLOW = 1;
    /** Every pair overlaps: quorums, full RF with 1, and the key's single replica (1/1, often neither node). */
    private static final List<Quorums> COMBINATIONS = List.of(
            new Quorums(3, 3, 3, 3),
            new Quorums(3, 3, 1, 3),
            new Quorums(1, 3, 3, 3),
            new Quorums(2, 3, 2, 3),
            new Quorums(1, 1, 1, 1));

    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster =
            new ClusterExtension(3, () -> dir, i -> List.of("--clock-offset-ms", String.valueOf(OFFSETS_MS[i])));

    @BeforeAll
    static void clocksReallyDisagree(ProcessCluster c) {
        ClockSkewScenarios.assertClockOffsets(c, OFFSETS_MS);
    }

    @Test
    void writeThenDeleteIsADelete(ProcessCluster c) {
        ClockSkewScenarios.writeThenDelete(c, FAST, SLOW, COMBINATIONS);
    }

    @Test
    void deleteThenRecreateIsTheNewValue(ProcessCluster c) {
        ClockSkewScenarios.deleteThenRecreate(c, FAST, SLOW, COMBINATIONS);
    }
}
