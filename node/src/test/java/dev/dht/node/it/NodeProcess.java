package dev.dht.node.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The node as users run it: {@code java -jar node/target/dht-node.jar ...} in its own process, with nothing but
 * the jar's manifest to set it up. Output goes to a log file that failures print.
 */
public final class NodeProcess implements AutoCloseable {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();

    private final Process process;
    private final Path log;
    private final int port;

    private NodeProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    static Path jar() {
        String jar = System.getProperty("dht.node.jar");
        assertThat(jar).as("failsafe passes -Ddht.node.jar").isNotNull();
        assertThat(Path.of(jar)).as("the packaged jar").exists();
        return Path.of(jar);
    }

    static List<String> command(List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-jar");
        cmd.add(jar().toString());
        cmd.addAll(args);
        return cmd;
    }

    /** Starts the jar; does not wait for readiness. */
    static NodeProcess start(Path logDir, String name, int port, List<String> args, Map<String, String> env) {
        try {
            Files.createDirectories(logDir);
            Path log = logDir.resolve(name + ".log");
            ProcessBuilder pb = new ProcessBuilder(command(args)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            pb.environment().keySet().removeIf(k -> k.startsWith("DHT_"));
            pb.environment().putAll(env);
            return new NodeProcess(pb.start(), log, port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs the jar to completion (CLI checks). */
    static Result run(Path logDir, List<String> args, Map<String, String> env) throws Exception {
        NodeProcess p = start(logDir, "run-" + System.nanoTime(), 0, args, env);
        assertThat(p.process.waitFor(60, TimeUnit.SECONDS)).as("process ends").isTrue();
        return new Result(p.process.exitValue(), p.output());
    }

    record Result(int exitCode, String output) {
    }

    NodeProcess awaitReady() {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError("node exited with " + process.exitValue() + ":\n" + output());
            }
            try {
                return get("/v0/status").statusCode() == 200;
            } catch (IOException e) {
                return false;
            }
        });
        return this;
    }

    HttpResponse<byte[]> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> put(String path, byte[] body) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    double metric(String name) throws IOException, InterruptedException {
        for (String line : new String(get("/metrics").body(), StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1).trim());
            }
        }
        return Double.NaN;
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    Process process() {
        return process;
    }

    /** SIGTERM (what Kubernetes and Ctrl-C send). */
    void terminate() {
        process.destroy();
    }

    /** SIGKILL: no shutdown code runs at all. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("node did not exit within " + timeout + ":\n" + output());
        }
        return process.exitValue();
    }

    String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
