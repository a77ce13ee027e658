package dev.dht.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterFileWatcherTest {

    /** Lays the file out as a mounted ConfigMap does: members -> ..data/members, ..data -> ..<timestamp>. */
    private static void configMapSwap(Path mount, String version, String content) throws Exception {
        Path versionDir = mount.resolve(".." + version);
        Files.createDirectories(versionDir);
        Files.writeString(versionDir.resolve("members"), content);
        Path tmpLink = mount.resolve("..data_tmp");
        Files.deleteIfExists(tmpLink);
        Files.createSymbolicLink(tmpLink, versionDir.getFileName());
        Files.move(
                tmpLink, mount.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (!Files.exists(mount.resolve("members"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(mount.resolve("members"), Path.of("..data/members"));
        }
    }

    /** The file with this content, and the members a node started on it holds (ConfigParser reads it at start). */
    private static Membership startedFrom(Path file, String content) throws Exception {
        Files.writeString(file, content);
        return new Membership("http://localhost:8080", ClusterMembers.parseFile(Files.readString(file)));
    }

    @Test
    void followsAConfigMapStyleSymlinkSwap(@TempDir Path mount) throws Exception {
        configMapSwap(mount, "v1", "http://localhost:8080\n");
        Path file = mount.resolve("members");
        Membership membership =
                new Membership("http://localhost:8080", ClusterMembers.parseFile(Files.readString(file)));
        List<ClusterMembers> seen = new CopyOnWriteArrayList<>();
        membership.subscribe(seen::add);

        try (ClusterFileWatcher watcher = new ClusterFileWatcher(file, membership, null, Duration.ofMillis(50))) {
            configMapSwap(mount, "v2", "http://localhost:8080\nhttp://localhost:8081\n");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> membership.current().size() == 2);
            assertThat(seen).hasSize(1);
            assertThat(membership.changes()).isEqualTo(1);

            // Same members, other spelling and order: content changed, member set did not.
            configMapSwap(mount, "v3", "# reordered\nhttp://LOCALHOST:8081/\nhttp://localhost:8080\n");
            watcher.poll();
            assertThat(membership.changes()).isEqualTo(1);

            // A broken file keeps the previous members.
            configMapSwap(mount, "v4", "not a url\n");
            watcher.poll();
            assertThat(membership.current().size()).isEqualTo(2);

            configMapSwap(mount, "v5", "http://localhost:8080\n");
            watcher.poll();
            assertThat(membership.current().urls()).containsExactly("http://localhost:8080");
            assertThat(seen).hasSize(2);
        }
    }

    /**
     * The node reads the file at start (ConfigParser) and starts its watcher later, after opening its store: a list
     * written in between is the node's list at the first poll, not once the file changes again. A node that kept
     * the older list and proposed the next move moved the cluster back and forth between the two lists
     * (MoveInProcessTest: 28 moves in 90 s).
     */
    @Test
    void aListWrittenBeforeTheWatcherStartedIsInstalledByTheFirstPoll(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("members");
        Membership membership = startedFrom(file, "http://localhost:8080\nhttp://b:1\n");
        Files.writeString(file, "http://localhost:8080\nhttp://b:1\nhttp://c:1\n"); // scaled while starting
        try (ClusterFileWatcher watcher = new ClusterFileWatcher(file, membership, null, Duration.ofHours(1))) {
            watcher.poll();
            assertThat(membership.current().urls())
                    .containsExactlyInAnyOrder("http://b:1", "http://c:1", "http://localhost:8080");
            assertThat(membership.changes()).isEqualTo(1);
            watcher.poll();
            assertThat(membership.changes())
                    .as("the same content again is no change")
                    .isEqualTo(1);
        }
    }

    @Test
    void theFirstPollOfTheListTheNodeStartedWithChangesNothing(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("members");
        Membership membership = startedFrom(file, "http://localhost:8080\nhttp://b:1\n");
        List<ClusterMembers> seen = new CopyOnWriteArrayList<>();
        membership.subscribe(seen::add);
        try (ClusterFileWatcher watcher = new ClusterFileWatcher(file, membership, null, Duration.ofHours(1))) {
            watcher.poll();
            assertThat(seen).isEmpty();
            assertThat(membership.changes()).isZero();
        }
    }

    @Test
    void aMissingFileKeepsTheMembers(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("members");
        Membership membership = startedFrom(file, "http://localhost:8080\nhttp://b:1\n");
        try (ClusterFileWatcher watcher = new ClusterFileWatcher(file, membership, null, Duration.ofHours(1))) {
            Files.delete(file);
            watcher.poll();
            assertThat(membership.current().size()).isEqualTo(2);
            Files.writeString(file, "http://localhost:8080\n");
            watcher.poll();
            assertThat(membership.current().size()).isEqualTo(1);
        }
    }

    /**
     * Racks in the file below the feature level that has them (docs/upgrading.md) are ignored, the members kept:
     * a member of the release before would not place by them. Taken once the level is raised, with no new file.
     */
    @Test
    void racksWaitForTheFeatureLevel(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("members");
        Membership membership = startedFrom(file, "http://localhost:8080\nhttp://b:1\n");
        dev.dht.node.release.FeatureLevel level = dev.dht.node.release.FeatureLevel.open(dir.resolve("data"), 0);
        try (ClusterFileWatcher watcher = new ClusterFileWatcher(
                file, membership, null, next -> next.hasRacks() ? level.racksRefusal() : null, Duration.ofHours(1))) {
            Files.writeString(file, "zone-a=http://localhost:8080\nzone-b=http://b:1\n");
            watcher.poll();
            assertThat(membership.current().hasRacks()).as("racks at level 1").isFalse();
            assertThat(level.racksRefusal()).contains("need feature level 2").contains("POST /v0/admin/feature-level");
            level.raise(dev.dht.node.release.FeatureLevel.RACKS);
            watcher.poll();
            assertThat(membership.current().racks()).containsEntry("http://b:1", "zone-b");
        }
    }
}
