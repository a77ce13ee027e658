package dev.dht.node.support;

import static org.awaitility.Awaitility.await;

import dev.dht.node.objectstore.CredentialsFile;
import dev.dht.node.objectstore.S3Location;
import dev.dht.node.objectstore.S3ObjectStore;
import dev.dht.node.objectstore.StoreCredentials;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real S3-compatible object store for the tests: versitygw v1.8.0 (built from its Go module and cached by
 * {@code scripts/tool.sh versitygw}) serving a temporary directory on a free loopback port, objects stored as plain
 * files under {@code root/<bucket>/<key>}. {@code make test} passes the binary as DHT_VERSITYGW; run alone, the test
 * asks the script for it (installing it once if needed).
 */
public final class ObjectStoreServer implements AutoCloseable {
    public static final String ACCESS_KEY = "dht-test-access";
    public static final String SECRET_KEY = "dht-test-secret-0123456789";

    private final Process process;
    private final Path root;
    private final int port;
    private final Path log;

    private ObjectStoreServer(Process process, Path root, int port, Path log) {
        this.process = process;
        this.root = root;
        this.port = port;
        this.log = log;
    }

    public static Path binary() {
        String env = System.getenv("DHT_VERSITYGW");
        if (env != null && !env.isBlank() && Files.isExecutable(Path.of(env))) {
            return Path.of(env);
        }
        return Path.of(RepoScripts.output("tool.sh", "versitygw"));
    }

    /** Starts versitygw on a free port serving dir/objects; logs to dir/versitygw.log. */
    public static ObjectStoreServer start(Path dir) {
        try {
            Path root = Files.createDirectories(dir.resolve("objects"));
            Path log = dir.resolve("versitygw.log");
            int port = TestNode.freePort();
            List<String> cmd = new ArrayList<>(
                    List.of(binary().toString(), "--port", "127.0.0.1:" + port, "posix", root.toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            pb.environment().put("ROOT_ACCESS_KEY", ACCESS_KEY);
            pb.environment().put("ROOT_SECRET_KEY", SECRET_KEY);
            Process process = pb.start();
            ObjectStoreServer server = new ObjectStoreServer(process, root, port, log);
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new AssertionError("versitygw exited: " + Files.readString(log));
                        }
                        try (Socket s = new Socket("127.0.0.1", port)) {
                            return true;
                        } catch (IOException e) {
                            return false;
                        }
                    });
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Where the objects are stored as files (bucket directories inside). */
    public Path root() {
        return root;
    }

    public S3Location location(String bucket, String prefix) {
        return new S3Location(endpoint(), bucket, prefix, "us-east-1", true);
    }

    /** A credentials directory as a mounted Secret would be. */
    public static Path writeCredentials(Path dir, String accessKey, String secretKey) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(CredentialsFile.ACCESS_KEY_ID), accessKey + "\n");
            Files.writeString(dir.resolve(CredentialsFile.SECRET_ACCESS_KEY), secretKey + "\n");
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A client with the server's root credentials (a credentials directory under dir); creates the bucket. */
    public S3ObjectStore client(String bucket, String prefix) {
        S3ObjectStore c = new S3ObjectStore(location(bucket, prefix), StoreCredentials.of(rootCredentials()));
        c.ensureBucket();
        return c;
    }

    /** The root credentials as a mounted Secret would hold them. */
    public Path rootCredentials() {
        return writeCredentials(root.resolveSibling("root-credentials"), ACCESS_KEY, SECRET_KEY);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    public Path log() {
        return log;
    }
}
