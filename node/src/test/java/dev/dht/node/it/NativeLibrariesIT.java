package dev.dht.node.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.TestNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Starting and stopping a node (SIGTERM or SIGKILL) leaves no file in java.io.tmpdir: RocksDB's and async-profiler's
 * native libraries come from a cache written once (DHT_CACHE_DIR/native), or from --native-dir, in which case
 * nothing at all is written; one-nio's is never used (the node stays on JDK sockets). Each test points java.io.tmpdir and the cache at its own empty
 * directories.
 */
class NativeLibrariesIT {
    @TempDir
    Path dir;

    @Test
    void aNodeStoppedBySigtermOrSigkillLeavesNothingInTheTempDirectoryAndUnpacksOnce() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Path cache = dir.resolve("cache");
        Map<String, String> env =
                Map.of("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + tmp, "DHT_CACHE_DIR", cache.toString());

        runAndStop(env, true);
        assertThat(files(tmp)).as("java.io.tmpdir after SIGTERM").isEmpty();
        Map<String, FileTime> cached = files(cache);
        assertThat(cached.keySet())
                .as("the cache holds every library")
                .anyMatch(f -> f.contains("librocksdbjni"))
                .noneMatch(f -> f.contains("libonenio")) // one-nio stays on JDK sockets: its library is never used
                .anyMatch(f -> f.endsWith("libasyncProfiler.so"))
                .noneMatch(f -> f.endsWith(".part"));

        runAndStop(env, false);
        assertThat(files(tmp)).as("java.io.tmpdir after SIGKILL").isEmpty();
        assertThat(files(cache))
                .as("the second start reuses the cache: same files, not rewritten")
                .isEqualTo(cached);
    }

    @Test
    void withANativeDirectoryNothingIsWrittenAnywhere() throws Exception {
        Path natives = dir.resolve("native");
        Process writer = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        NodeProcess.jar().toString(),
                        "dev.dht.node.natives.NativeLibraries",
                        natives.toString())
                .redirectErrorStream(true)
                .start();
        String written = new String(writer.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(writer.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(writer.exitValue()).as(written).isZero();
        Map<String, FileTime> provided = files(natives);
        assertThat(provided).hasSizeGreaterThanOrEqualTo(2);

        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Path cache = dir.resolve("cache");
        Map<String, String> env = Map.of(
                "JAVA_TOOL_OPTIONS",
                "-Djava.io.tmpdir=" + tmp,
                "DHT_CACHE_DIR",
                cache.toString(),
                "DHT_NATIVE_DIR",
                natives.toString());
        runAndStop(env, true);
        runAndStop(env, false);
        assertThat(files(tmp)).as("java.io.tmpdir").isEmpty();
        assertThat(cache).as("the cache is not used").doesNotExist();
        assertThat(files(natives)).as("the native directory is only read").isEqualTo(provided);
    }

    /** Starts a node, writes, profiles (which loads async-profiler), and stops it by SIGTERM or SIGKILL. */
    private void runAndStop(Map<String, String> env, boolean sigterm) throws Exception {
        int port = TestNode.freePort();
        List<String> args = List.of(
                "--port",
                String.valueOf(port),
                "--data-dir",
                dir.resolve("data").toString());
        try (NodeProcess node = NodeProcess.start(dir, "node", port, args, env)) {
            node.awaitReady();
            assertThat(node.put("/v0/entity?id=k", new byte[] {1}).statusCode()).isEqualTo(201);
            assertThat(node.get("/v0/admin/profile?event=cpu&duration=200ms&format=collapsed")
                            .statusCode())
                    .as(node.output())
                    .isEqualTo(200);
            if (sigterm) {
                node.terminate();
                assertThat(node.awaitExit(Duration.ofSeconds(60)))
                        .as(node.output())
                        .isZero();
            } else {
                node.kill9();
            }
        }
    }

    /** Every file under a directory (relative path -> modification time); empty if it does not exist. */
    private static Map<String, FileTime> files(Path root) throws IOException {
        Map<String, FileTime> files = new TreeMap<>();
        if (!Files.exists(root)) {
            return files;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                files.put(root.relativize(p).toString(), Files.getLastModifiedTime(p));
            }
        }
        return files;
    }
}
