package dev.dht.node.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One {@link ProcessCluster} for a whole test class: started once (every node at once), every node running again
 * before each test (a test restarts only the nodes it stopped, and only when it needs them), each test on fresh
 * keys. Tests take the cluster as a {@link ProcessCluster} parameter. When a test fails, what every node logged during it is printed. After the class every process is killed.
 *
 * <p>Register it as a static field next to a static {@code @TempDir}, which JUnit fills before this runs:
 * <pre>{@code
 * @TempDir static Path dir;
 * @RegisterExtension static final ClusterExtension cluster = new ClusterExtension(3, () -> dir);
 * }</pre>
 */
final class ClusterExtension
        implements BeforeAllCallback,
                AfterAllCallback,
                BeforeEachCallback,
                BeforeTestExecutionCallback,
                AfterTestExecutionCallback,
                ParameterResolver {
    private final int size;
    private final Supplier<Path> dir;
    private final IntFunction<List<String>> extraArgs;
    private final IntFunction<String> racks;
    private ProcessCluster cluster;
    private long[] logLengths;

    ClusterExtension(int size, Supplier<Path> dir) {
        this(size, dir, i -> List.of());
    }

    /** @param extraArgs node i's options beyond port, data directory and members */
    ClusterExtension(int size, Supplier<Path> dir, IntFunction<List<String>> extraArgs) {
        this(size, dir, extraArgs, null);
    }

    /** @param racks node i's rack in the member list (null: no racks) */
    ClusterExtension(int size, Supplier<Path> dir, IntFunction<List<String>> extraArgs, IntFunction<String> racks) {
        this.size = size;
        this.dir = dir;
        this.extraArgs = extraArgs;
        this.racks = racks;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == ProcessCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Path root = dir.get();
        if (root == null) {
            throw new IllegalStateException("the @TempDir field must be static and filled before the cluster starts");
        }
        cluster = ProcessCluster.start(root, size, extraArgs, Duration.ofSeconds(60), racks);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        cluster.startStopped();
    }

    @Override
    public void beforeTestExecution(ExtensionContext context) {
        logLengths = cluster.logs().lengths();
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        if (context.getExecutionException().isPresent()) {
            System.err.println("==== " + context.getDisplayName() + " failed; what the nodes logged meanwhile:\n"
                    + cluster.logs().since(logLengths));
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
        }
    }
}
