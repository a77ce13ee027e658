package dev.dht.node.support;

import dev.dht.node.Node;
import dev.dht.node.TestHooks;
import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.http.EntityHandler;
import dev.dht.node.storage.Store;
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
import one.nio.http.HttpClient;
import one.nio.net.ConnectionString;

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

    /**
     * A client port that is free, and whose member port (+ the default offset, 10000) is free too. Both are drawn
     * below the kernel's ephemeral range (32768+ here), so that no outgoing connection can take them meanwhile;
     * the fixed ports people run by hand (8080-8082, 18080-18082) are skipped.
     */
    public static int freePort() {
        int offset = SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET;
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = 12_000 + RANDOM.nextInt(32_000 - offset - 12_000);
            if (port >= 18_070 && port <= 18_090 || port + offset >= 18_070 && port + offset <= 18_090) {
                continue;
            }
            if (bindable(port) && bindable(port + offset)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair (client, client + " + offset + ") found");
    }

    private static final java.util.Random RANDOM = new java.security.SecureRandom();

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new java.net.InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public static TestNode start(Path dir) {
        return start(dir, c -> c);
    }

    public static TestNode start(Path dir, UnaryOperator<NodeConfig> tweak) {
        return start(dir, tweak, null);
    }

    /** @param handlers builds the entity handler from the real store and clock (tests wrap the real one). */
    public static TestNode start(
            Path dir, UnaryOperator<NodeConfig> tweak, BiFunction<Store, HybridLogicalClock, EntityHandler> handlers) {
        NodeConfig config = tweak.apply(NodeConfig.defaults(freePort(), dir));
        try {
            Node node = handlers == null ? Node.start(config) : TestHooks.start(config, handlers);
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

    /** The same path on the node's member port (loopback: what a member on this machine would call). */
    public URI memberUri(String pathAndQuery) {
        return URI.create("http://localhost:" + node.server().memberPort() + pathAndQuery);
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
