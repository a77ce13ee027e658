package dev.dht.node.support;

import dev.dht.node.Node;
import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.http.EntityHandler;
import dev.dht.node.storage.Store;
import one.nio.http.HttpClient;
import one.nio.net.ConnectionString;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/** A real node started in this JVM on a free loopback port, with the course's one-nio client and a JDK client. */
public final class TestNode implements AutoCloseable {
    private static final java.net.http.HttpClient JDK = java.net.http.HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(java.net.http.HttpClient.Version.HTTP_1_1)
            .build();

    private final Node node;
    private final int port;
    private HttpClient oneNio;

    private TestNode(Node node) {
        this.node = node;
        this.port = node.port();
    }

    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static TestNode start(Path dir) {
        return start(dir, c -> c);
    }

    public static TestNode start(Path dir, UnaryOperator<NodeConfig> tweak) {
        return start(dir, tweak, null);
    }

    /** @param handlers builds the entity handler from the real store and clock (tests wrap the real one). */
    public static TestNode start(Path dir, UnaryOperator<NodeConfig> tweak,
                                 BiFunction<Store, HybridLogicalClock, EntityHandler> handlers) {
        NodeConfig config = tweak.apply(NodeConfig.defaults(freePort(), dir));
        try {
            Node node = handlers == null ? Node.start(config) : Node.start(config, handlers);
            return new TestNode(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A node with exactly this configuration (in-process clusters choose every member's port up front). */
    public static TestNode start(NodeConfig config) {
        try {
            return new TestNode(Node.start(config));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Node node() {
        return node;
    }

    public int port() {
        return port;
    }

    /** The course's client: one-nio HttpClient, as SingleNodeTest builds it. */
    public synchronized HttpClient client() {
        if (oneNio == null) {
            oneNio = new HttpClient(new ConnectionString("http://localhost:" + port + "?timeout=30000"));
        }
        return oneNio;
    }

    public URI uri(String pathAndQuery) {
        return URI.create("http://localhost:" + port + pathAndQuery);
    }

    public static java.net.http.HttpClient jdk() {
        return JDK;
    }

    public HttpResponse<byte[]> send(HttpRequest.Builder request) {
        try {
            return JdkHttp.send(JDK, request.timeout(Duration.ofSeconds(30)).build());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public HttpResponse<byte[]> get(String pathAndQuery) {
        return send(HttpRequest.newBuilder(uri(pathAndQuery)).GET());
    }

    public HttpResponse<byte[]> put(String pathAndQuery, byte[] body) {
        return send(HttpRequest.newBuilder(uri(pathAndQuery)).PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    public HttpResponse<byte[]> delete(String pathAndQuery) {
        return send(HttpRequest.newBuilder(uri(pathAndQuery)).DELETE());
    }

    /** The node's /metrics text. */
    public String metrics() {
        return new String(get("/metrics").body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Value of an unlabelled sample in /metrics. A metric the node does not export fails the test (an assertion
     * such as isPositive() would accept the NaN that stood for it).
     */
    public double metric(String name) {
        for (String line : metrics().split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1).trim());
            }
        }
        throw new AssertionError("the node exports no metric " + name);
    }

    @Override
    public void close() {
        if (oneNio != null) {
            oneNio.close();
        }
        node.close();
    }
}
