package dev.dht.node.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ScaleUpDownIT}'s scenario with one old member that sees every change of the file 30 s after the others
 * (the kubelet delivers a ConfigMap to each pod up to a minute apart). That member is not the proposer of either
 * set, so the moves do not wait for it: it learns each state from its peers' calls while its own file still lists
 * the old members, keeps it, and its file catches up later (a scheduled update, part of the scenario).
 */
class LaggingMemberScaleIT {
    static final Duration LAG = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void aMemberThatSeesTheFileLateChangesNothing() throws Exception {
        try (ScalingCluster c = new ScalingCluster(dir, 5, i -> List.of("--replication-factor", "3"))) {
            int lagging = -1;
            for (int i = 0; i < 3 && lagging < 0; i++) {
                if (i != c.proposerOf(3) && i != c.proposerOf(5)) {
                    lagging = i;
                }
            }
            ScaleUpDownIT.Lag lag = ScaleUpDownIT.Lag.of(lagging, LAG);
            long[] logStart = c.logs().lengths();
            try {
                ScaleUpDownIT.run(c, lag);
            } catch (Throwable t) {
                System.err.println("==== what the nodes logged (node " + lagging + " lags):\n"
                        + c.logs().since(logStart));
                throw t;
            } finally {
                lag.timer().shutdownNow();
            }
        }
    }
}
