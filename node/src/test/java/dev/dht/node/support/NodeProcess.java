package dev.dht.node.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.config.SecuritySettings;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * The node as users run it: {@code java -jar node/target/dht-node.jar ...} in its own process, with nothing but
 * the jar's manifest to set it up. Output is appended to a log file that failures print.
 *
 * <p>Each process has its own HTTP client: a node restarted on the same port never gets a request on a pooled
 * connection of the process that ran there before. Processes not closed by their test are killed when the test
 * JVM exits, so an aborted run leaves no node behind.
 */
public final class NodeProcess implements AutoCloseable {
    /** Per-request timeout of {@link #get}, {@link #put} and {@link #delete}. */
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private static final Set<Process> UNCLOSED = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> UNCLOSED.forEach(Process::destroyForcibly), "kill-node-processes"));
    }

    private final Process process;
    private final Path log;
    private final int port;
    private HttpClient http;
    /** The client port's TLS as this process's clients speak it, or null for plaintext. */
    private SSLContext tls;
    /** Clients of earlier TLS contexts: their requests in flight finish; closed with the process. */
    private final List<HttpClient> retired = new ArrayList<>();

    private NodeProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    public static Path jar() {
        String jar = System.getProperty("dht.node.jar");
        assertThat(jar).as("failsafe passes -Ddht.node.jar").isNotNull();
        assertThat(Path.of(jar)).as("the packaged jar").exists();
        return Path.of(jar);
    }

    static List<String> command(List<String> args, Path jar) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-jar");
        cmd.add((jar == null ? jar() : jar).toString());
        cmd.addAll(args);
        return cmd;
    }

    /** Starts the jar, its output appended to {@code logDir/name.log}; does not wait for readiness. */
    public static NodeProcess start(Path logDir, String name, int port, List<String> args, Map<String, String> env) {
        return start(logDir, name, port, args, env, null);
    }

    /** As {@link #start(Path, String, int, List, Map)}, running this jar (null: this build's; another release's). */
    public static NodeProcess start(
            Path logDir, String name, int port, List<String> args, Map<String, String> env, Path jar) {
        try {
            Files.createDirectories(logDir);
            Path log = logDir.resolve(name + ".log");
            ProcessBuilder pb = new ProcessBuilder(command(args, jar))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            // the node's settings and its object store identity come from the test alone; and no test asks the EC2
            // instance metadata (a non-loopback address) for credentials or a region
            pb.environment().keySet().removeIf(k -> k.startsWith("DHT_") || k.startsWith("AWS_"));
            pb.environment().put("AWS_EC2_METADATA_DISABLED", "true");
            pb.environment().putAll(env);
            Process process = pb.start();
            UNCLOSED.add(process);
            return new NodeProcess(process, log, port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs the jar to completion (CLI checks). */
    public static Result run(Path logDir, List<String> args, Map<String, String> env) throws Exception {
        try (NodeProcess p = start(logDir, "run-" + System.nanoTime(), 0, args, env)) {
            assertThat(p.process.waitFor(60, TimeUnit.SECONDS))
                    .as("process ends")
                    .isTrue();
            return new Result(p.process.exitValue(), p.output());
        }
    }

    public record Result(int exitCode, String output) {}

    /** Waits until GET /v0/status answers 200; fails at once, with the log, if the process exits. */
    public NodeProcess awaitReady() {
        return awaitReady(Duration.ofSeconds(60));
    }

    /** As {@link #awaitReady()}, within the given bound (a node recovering a large WAL on a busy machine). */
    public NodeProcess awaitReady(Duration bound) {
        await().atMost(bound).pollInterval(Duration.ofMillis(50)).until(() -> {
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

    /** This process's HTTP/1.1 client. */
    public synchronized HttpClient http() {
        if (http == null) {
            HttpClient.Builder b = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(2))
                    .version(HttpClient.Version.HTTP_1_1);
            if (tls != null) {
                b.sslContext(tls);
            }
            http = b.build();
        }
        return http;
    }

    /**
     * From now on this process's client port is called over TLS with this context (a client certificate, the CAs
     * trusted for the node): new requests get a new client; the old one's requests in flight finish.
     */
    public synchronized NodeProcess useTls(SSLContext context) {
        tls = context;
        if (http != null) {
            retired.add(http);
            http = null;
        }
        return this;
    }

    public HttpResponse<byte[]> send(HttpRequest.Builder request, Duration timeout)
            throws IOException, InterruptedException {
        return JdkHttp.send(http(), request.timeout(timeout).build());
    }

    public HttpResponse<byte[]> get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).GET(), DEFAULT_TIMEOUT);
    }

    public HttpResponse<byte[]> put(String path, byte[] body) throws IOException, InterruptedException {
        return send(
                HttpRequest.newBuilder(uri(path)).PUT(HttpRequest.BodyPublishers.ofByteArray(body)), DEFAULT_TIMEOUT);
    }

    public HttpResponse<byte[]> delete(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).DELETE(), DEFAULT_TIMEOUT);
    }

    /**
     * Value of an unlabelled sample in /metrics. A metric the node does not export fails the test (an assertion
     * such as isPositive() would accept the NaN that stood for it).
     */
    public double metric(String name) throws IOException, InterruptedException {
        for (String line : new String(get("/metrics").body(), StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1).trim());
            }
        }
        throw new AssertionError("the node exports no metric " + name);
    }

    public synchronized URI uri(String path) {
        return URI.create((tls == null ? "http" : "https") + "://127.0.0.1:" + port + path);
    }

    /** The same path on the member port (client port + the default offset; loopback, as the node binds it). */
    public URI memberUri(String path) {
        return URI.create("http://127.0.0.1:" + (port + SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET) + path);
    }

    public int port() {
        return port;
    }

    public Process process() {
        return process;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGTERM (what Kubernetes and Ctrl-C send). */
    public void terminate() {
        process.destroy();
    }

    /** SIGKILL: no shutdown code runs at all. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("node did not exit within " + timeout + ":\n" + output());
        }
        return process.exitValue();
    }

    /** The log file (shared by every process started with the same name in the same directory). */
    public Path log() {
        return log;
    }

    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Kills the process if it still runs and releases its HTTP client. */
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
        UNCLOSED.remove(process);
        List<HttpClient> clients;
        synchronized (this) {
            clients = new ArrayList<>(retired);
            if (http != null) {
                clients.add(http);
            }
            retired.clear();
            http = null;
        }
        clients.forEach(HttpClient::shutdownNow);
    }
}
