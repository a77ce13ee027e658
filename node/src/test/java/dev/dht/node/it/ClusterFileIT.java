package dev.dht.node.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.TestNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --cluster-file is re-read when its content changes, as a mounted ConfigMap changes. */
class ClusterFileIT {

    private static void replace(Path file, String content) throws Exception {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void membersFollowTheFile(@TempDir Path dir) throws Exception {
        int port = TestNode.freePort();
        Path members = dir.resolve("members");
        Files.writeString(members, "# one member\nhttp://localhost:" + port + "\n");
        try (NodeProcess node = NodeProcess.start(
                dir,
                "node",
                port,
                List.of(
                        "--port",
                        String.valueOf(port),
                        "--data-dir",
                        dir.resolve("data").toString(),
                        "--cluster-file",
                        members.toString()),
                Map.of())) {
            node.awaitReady();
            assertThat(node.metric("dht_cluster_members")).isEqualTo(1.0);

            replace(members, "http://localhost:" + port + "\nhttp://localhost:1\nhttp://localhost:2\n");
            // The member set is installed before the change is counted and logged: await each, assume no order.
            await().atMost(Duration.ofSeconds(20)).until(() -> node.metric("dht_cluster_members") == 3.0);
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() ->
                            assertThat(node.metric("dht_cluster_changes_total")).isEqualTo(1.0));

            replace(members, "this is not a URL\n");
            await().atMost(Duration.ofSeconds(20)).until(() -> node.output().contains("ignored, keeping 3 members"));
            assertThat(node.metric("dht_cluster_members"))
                    .as("a broken file keeps the members")
                    .isEqualTo(3.0);

            replace(members, "http://localhost:" + port + "\n");
            await().atMost(Duration.ofSeconds(20)).until(() -> node.metric("dht_cluster_members") == 1.0);
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(node.output())
                            .contains("cluster file changed: 3 members")
                            .contains("cluster file changed: 1 members"));
        }
    }
}
