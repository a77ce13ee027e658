package dev.dht.node.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.TestNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member's rack is part of its identity (docs/cluster.md, "Racks"): the jar as users run it, on one data
 * directory. A declared rack that the member list contradicts is refused before anything starts; a member that ran
 * in one rack refuses to start in another, saying how to move it, unless the change is accepted; the accepted rack
 * is the one it then keeps.
 */
class RackIdentityIT {
    @TempDir
    Path dir;

    private List<String> args(int port, String listedRack, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "--port",
                String.valueOf(port),
                "--data-dir",
                dir.resolve("data").toString(),
                "--cluster",
                listedRack + "=http://localhost:" + port,
                "--feature-level",
                "2"));
        args.addAll(List.of(more));
        return args;
    }

    @Test
    void aMemberKeepsItsRackUnlessTheChangeIsAccepted() throws Exception {
        int port = TestNode.freePort();

        NodeProcess.Result disagree = NodeProcess.run(dir, args(port, "zone-a", "--rack", "zone-b"), Map.of());
        assertThat(disagree.exitCode()).as(disagree.output()).isEqualTo(2);
        assertThat(disagree.output())
                .contains("declares rack 'zone-b' (--rack (DHT_RACK))")
                .contains("the member list puts it in rack 'zone-a'");

        try (NodeProcess first =
                NodeProcess.start(dir, "first", port, args(port, "zone-a"), Map.of("DHT_RACK", "zone-a"))) {
            first.awaitReady();
            first.terminate();
            assertThat(first.awaitExit(Duration.ofSeconds(30))).isZero();
        }

        NodeProcess.Result moved = NodeProcess.run(dir, args(port, "zone-b", "--rack", "zone-b"), Map.of());
        assertThat(moved.exitCode()).as(moved.output()).isEqualTo(1);
        assertThat(moved.output())
                .contains("this member ran in rack 'zone-a'")
                .contains("declares rack 'zone-b'")
                .contains("--accept-rack-change (DHT_ACCEPT_RACK_CHANGE=true)");

        try (NodeProcess accepted = NodeProcess.start(
                dir,
                "accepted",
                port,
                args(port, "zone-b", "--rack", "zone-b"),
                Map.of("DHT_ACCEPT_RACK_CHANGE", "true"))) {
            accepted.awaitReady();
            assertThat(accepted.output())
                    .contains("rack change accepted: this member ran in rack 'zone-a' and now"
                            + " runs in rack 'zone-b'");
            accepted.terminate();
            assertThat(accepted.awaitExit(Duration.ofSeconds(30))).isZero();
        }

        NodeProcess.Result back = NodeProcess.run(dir, args(port, "zone-a", "--rack", "zone-a"), Map.of());
        assertThat(back.exitCode()).as("the accepted rack is the member's now").isEqualTo(1);
        assertThat(back.output()).contains("this member ran in rack 'zone-b'");
    }

    /** Racks in the member list need the feature level that has them (docs/upgrading.md): refused, saying what to do. */
    @Test
    void racksBelowTheirFeatureLevelAreRefusedAtStart() throws Exception {
        int port = TestNode.freePort();
        NodeProcess.Result r = NodeProcess.run(
                dir,
                List.of(
                        "--port",
                        String.valueOf(port),
                        "--data-dir",
                        dir.resolve("level-1").toString(),
                        "--cluster",
                        "zone-a=http://localhost:" + port),
                Map.of());
        assertThat(r.exitCode()).as(r.output()).isEqualTo(1);
        assertThat(r.output())
                .contains("racks in the member list need feature level 2 (this member runs at 1)")
                .contains("raise the level on every member");
    }
}
