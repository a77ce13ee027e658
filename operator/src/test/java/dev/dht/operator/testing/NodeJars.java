package dev.dht.operator.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The packaged node jar run as members on loopback, for the operator's contract tests against the real node: a
 * process per member with a cluster file, as in a pod, its output in {@code node-<port>.log} under the test's
 * directory; {@link #close} stops them all.
 */
public final class NodeJars implements AutoCloseable {
    /** The node's member port is its client port + this (docs/security.md): both must be free. */
    public static final int MEMBER_PORT_OFFSET = 10000;

    private static final Random RANDOM = new SecureRandom();

    private final Path dir;
    private final List<Process> started = new ArrayList<>();

    public NodeJars(Path dir) {
        this.dir = dir;
    }

    /**
     * Starts a member at {@code url} ({@code http://localhost:<port>}) reading {@code clusterFile}, with the node's
     * further options {@code options}.
     */
    public void start(String url, Path clusterFile, String... options) throws IOException {
        Path jar = Repo.path("node/target/dht-node.jar");
        assertThat(jar)
                .as("the node jar, built before the operator's tests (mvn verify from the root)")
                .exists();
        String java = ProcessHandle.current().info().command().orElse("java");
        int port = URI.create(url).getPort();
        var command = new ArrayList<>(List.of(
                java,
                "-Xmx128m",
                "-jar",
                jar.toString(),
                "--port",
                Integer.toString(port),
                "--data-dir",
                dir.resolve("data-" + port).toString(),
                "--cluster-file",
                clusterFile.toString(),
                "--self",
                url));
        command.addAll(List.of(options));
        var builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("node-" + port + ".log").toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("DHT_"));
        started.add(builder.start());
    }

    /** Prints every member's log (for a failed test: what the nodes said). */
    public void printLogs() {
        try (var logs = Files.list(dir)) {
            for (Path log : logs.filter(p -> p.toString().endsWith(".log")).toList()) {
                System.err.println("==== " + log.getFileName() + ":\n" + Files.readString(log));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Two different client ports whose member ports are free too, neither being the other's member port. */
    public static List<Integer> twoFreePorts() {
        int a = freePort();
        int b;
        do {
            b = freePort();
        } while (b == a || Math.abs(b - a) == MEMBER_PORT_OFFSET);
        return List.of(a, b);
    }

    /** A free client port whose member port is free too, both below the ephemeral range. */
    static int freePort() {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = 12_000 + RANDOM.nextInt(32_000 - MEMBER_PORT_OFFSET - 12_000);
            if (bindable(port) && bindable(port + MEMBER_PORT_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair");
    }

    private static boolean bindable(int port) {
        try (var socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("0.0.0.0", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
