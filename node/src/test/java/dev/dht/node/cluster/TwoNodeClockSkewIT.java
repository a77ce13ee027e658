package dev.dht.node.cluster;

import dev.dht.node.cluster.ClockSkewScenarios.Quorums;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@link ClockSkewIT} on two nodes: node 0 runs 5 s ahead, node 1 5 s behind. */
class TwoNodeClockSkewIT {
    private static final long[] OFFSETS_MS = {5000, -5000};
    private static final int FAST = 0;
    private static final int SLOW = 1;
    private static final List<Quorums> COMBINATIONS =
            List.of(new Quorums(2, 2, 2, 2), new Quorums(2, 2, 1, 2), new Quorums(1, 2, 2, 2), new Quorums(1, 1, 1, 1));

    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster =
            new ClusterExtension(2, () -> dir, i -> List.of("--clock-offset-ms", String.valueOf(OFFSETS_MS[i])));

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
