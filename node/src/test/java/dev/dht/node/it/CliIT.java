package dev.dht.node.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.config.NodeOption;
import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.TestNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar's command line: --help, one-line errors with exit code 2, configuration from the environment. */
class CliIT {
    @TempDir
    Path dir;

    @Test
    void helpListsEveryOptionWithItsDefaultAndExits0() throws Exception {
        NodeProcess.Result r = NodeProcess.run(dir, List.of("--help"), Map.of());
        assertThat(r.exitCode()).isZero();
        for (NodeOption o : NodeOption.values()) {
            if (!o.testOnly()) {
                assertThat(r.output()).contains(o.flag()).contains(o.env());
            }
        }
        assertThat(r.output()).as("test hooks are not shown").doesNotContain("--clock-offset-ms");
        assertThat(r.output())
                .contains("default: 8080")
                .contains("default: ./data")
                .contains("default: 16MiB")
                .contains("default: 64MiB")
                .contains("default: 1s")
                .contains("default: 1d");
    }

    @Test
    void versionNamesTheReleaseAndExits0() throws Exception {
        NodeProcess.Result r = NodeProcess.run(dir, List.of("--version"), Map.of());
        assertThat(r.exitCode()).isZero();
        assertThat(r.output())
                .contains("dht-node " + dev.dht.node.release.Release.VERSION + " (cluster feature levels" + " up to "
                        + dev.dht.node.release.FeatureLevel.MAX + ")");
        assertThat(dev.dht.node.release.Release.VERSION)
                .as("the pom's version, filtered in")
                .matches("\\d+\\.\\d+\\.\\d+.*");
    }

    @Test
    void badOptionsAreOneLineAndExit2() throws Exception {
        for (List<String> args : List.of(
                List.of("--no-such-option"),
                List.of("--port", "99999"),
                List.of("--max-body", "huge"),
                List.of("--cluster", "ftp://x:1"),
                List.of("stray"))) {
            NodeProcess.Result r = NodeProcess.run(dir, args, Map.of());
            assertThat(r.exitCode()).as(args.toString()).isEqualTo(2);
            // the JVM's own notices (its warnings, "Picked up JAVA_TOOL_OPTIONS: ..." when that is set) are not ours
            assertThat(r.output().strip().lines().filter(l -> !l.startsWith("WARNING:") && !l.startsWith("Picked up ")))
                    .as(args.toString())
                    .hasSize(1)
                    .allMatch(l -> l.startsWith("dht-node: "));
        }
        NodeProcess.Result env = NodeProcess.run(dir, List.of(), Map.of("DHT_PORT", "eighty"));
        assertThat(env.exitCode()).isEqualTo(2);
        assertThat(env.output()).contains("DHT_PORT").contains("'eighty' is not a whole number");
    }

    @Test
    void environmentConfiguresTheNode() throws Exception {
        int port = TestNode.freePort();
        Path data = dir.resolve("env-data");
        try (NodeProcess node = NodeProcess.start(
                dir,
                "env",
                port,
                List.of(),
                Map.of(
                        "DHT_PORT", String.valueOf(port),
                        "DHT_DATA_DIR", data.toString(),
                        "DHT_CLUSTER", "http://localhost:" + port + ",http://localhost:1"))) {
            // A new data directory, and the only other member never answers: the node cannot tell whether it
            // lost its data (dev.dht.node.rebuild), so it says it is not ready, and why; it serves writes.
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                try {
                    var status = node.get("/v0/status");
                    return status.statusCode() == 503 && new String(status.body()).contains("new data directory");
                } catch (java.io.IOException e) {
                    return false;
                }
            });
            // two members, the other one down: the default 2/2 cannot be met, 1/2 is served by this node
            assertThat(node.put("/v0/entity?id=e", new byte[] {1}).statusCode()).isEqualTo(504);
            assertThat(node.put("/v0/entity?id=e&replicas=1/2", new byte[] {1}).statusCode())
                    .isEqualTo(201);
            assertThat(node.metric("dht_cluster_members")).isEqualTo(2.0);
            assertThat(Files.exists(data.resolve("CURRENT")))
                    .as("RocksDB lives in DHT_DATA_DIR")
                    .isTrue();
        }
    }

    @Test
    void aDataDirectoryInUseIsAClearStartupError() throws Exception {
        int port = TestNode.freePort();
        Path data = dir.resolve("shared");
        try (NodeProcess first = NodeProcess.start(
                dir, "first", port, List.of("--port", String.valueOf(port), "--data-dir", data.toString()), Map.of())) {
            first.awaitReady();
            int other = TestNode.freePort();
            NodeProcess.Result second = NodeProcess.run(
                    dir, List.of("--port", String.valueOf(other), "--data-dir", data.toString()), Map.of());
            assertThat(second.exitCode()).isEqualTo(1);
            assertThat(second.output()).contains("cannot start").contains("lock");
        }
    }
}
