package dev.dht.node.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FilePollerTest {

    private static List<String> texts(List<byte[]> contents) {
        return contents.stream().map(String::new).toList();
    }

    @Test
    void offersChangedContentOnceAndComparesAgainstWhatTheCallerUses(@TempDir Path dir) throws Exception {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Files.writeString(a, "a1");
        Files.writeString(b, "b1");
        List<List<String>> offered = new CopyOnWriteArrayList<>();
        try (FilePoller poller = new FilePoller(
                "test-poller",
                List.of(a, b),
                FilePoller.read(List.of(a, b)),
                Duration.ofHours(1),
                c -> offered.add(texts(c)))) {
            poller.poll();
            assertThat(offered).as("the contents the caller started with").isEmpty();
            Files.writeString(b, "b2");
            poller.poll();
            poller.poll();
            assertThat(offered).containsExactly(List.of("a1", "b2"));
            Files.delete(a);
            poller.poll();
            assertThat(offered).as("an unreadable file is no change").hasSize(1);
        }
    }

    /** Contents refused for now are offered again, unchanged, until the caller takes them; then no more. */
    @Test
    void offersRefusedContentAgainUntilTaken(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("f");
        Files.writeString(f, "v1");
        AtomicBoolean refuse = new AtomicBoolean(true);
        List<String> offered = new CopyOnWriteArrayList<>();
        try (FilePoller poller =
                FilePoller.offering("test-poller", List.of(f), FilePoller.read(List.of(f)), Duration.ofHours(1), c -> {
                    offered.add(new String(c.get(0)));
                    return !refuse.get();
                })) {
            Files.writeString(f, "v2");
            poller.poll();
            poller.poll();
            assertThat(offered).containsExactly("v2", "v2");
            refuse.set(false);
            poller.poll();
            poller.poll();
            assertThat(offered).as("taken once, then settled").containsExactly("v2", "v2", "v2");
        }
    }
}
