package dev.dht.node.config;

import io.soabase.recordbuilder.core.RecordBuilder;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Every setting of a node, validated. Built by {@link ConfigParser} from the command line and DHT_* environment
 * variables (see docs/node.md and the node contract); tests build it with {@link #defaults(int, Path)}.
 *
 * @param members          the initial member set (from --cluster or --cluster-file)
 * @param clusterFile      re-read when its content changes, or null
 * @param self             this node's member URL (canonical)
 * @param replicationFactor default `from` of a request; 0 means "the cluster size"
 * @param requestTimeout   coordinator deadline for replica answers (cluster issue)
 * @param workers          worker threads that run requests
 * @param queueSize        bounded queue in front of the workers; full means 503
 * @param selectors        one-nio selector threads (parse requests, write responses)
 * @param maxBody          larger request bodies are answered 413
 * @param blockCache       RocksDB block cache size (a HyperClockCache: StorageOptions.node)
 * @param writeBuffer      RocksDB memtable size
 * @param profileDir       where flamegraph captures are also written, or null
 * @param tombstoneGrace   tombstones older than this may be dropped by compaction (cluster issue)
 * @param idleTimeout      keep-alive connections idle for longer are closed; also the cleanup period
 * @param sendTimeout      a response (e.g. a range stream) that makes no write progress for longer is dropped
 * @param shutdownGrace    how long SIGTERM waits for in-flight requests
 * @param cluster          replication settings: hinted handoff, tombstone purge, test-only clock offset
 * @param security         the planes: member port, its TLS, client tokens, clock bound (docs/security.md)
 * @param drainTime        on SIGTERM, how long the node first keeps serving, not ready, closing each client
 *                         connection after its next answer (0: stop at once; see {@link dev.dht.node.drain.Drain})
 * @param rack             the rack this member declares, and whether a change of it is accepted
 * @param featureLevel     --feature-level: the cluster feature level to raise this member to at start (0: the one
 *                         its data directory has; docs/upgrading.md)
 */
@RecordBuilder
public record NodeConfig(
        int port,
        Path dataDir,
        ClusterMembers members,
        Path clusterFile,
        String self,
        int replicationFactor,
        Duration requestTimeout,
        int workers,
        int queueSize,
        int selectors,
        long maxBody,
        long blockCache,
        long writeBuffer,
        Path profileDir,
        Duration tombstoneGrace,
        Duration idleTimeout,
        Duration sendTimeout,
        Duration shutdownGrace,
        ClusterSettings cluster,
        SecuritySettings security,
        Duration drainTime,
        RackSettings rack,
        int featureLevel)
        implements NodeConfigBuilder.With {

    // the defaults are NodeOption's
    public static final int DEFAULT_PORT = NodeOption.PORT.intDefault();
    public static final long DEFAULT_MAX_BODY = NodeOption.MAX_BODY.sizeDefault();
    /** The smallest default block cache (the default is a share of memory, {@link #defaultBlockCache()}). */
    public static final long MIN_DEFAULT_BLOCK_CACHE = 64L << 20;
    /** Share of the process's memory the default block cache takes: 1/5. */
    static final int BLOCK_CACHE_MEMORY_DIVISOR = 5;

    public static final long DEFAULT_WRITE_BUFFER = NodeOption.WRITE_BUFFER.sizeDefault();

    /** CPU count as the JVM sees it (container limits included). */
    public static int cpus() {
        return Runtime.getRuntime().availableProcessors();
    }

    public static int defaultSelectors() {
        return cpus();
    }

    public static int defaultWorkers() {
        return Math.max(2, 2 * cpus());
    }

    /**
     * Memory this process may use: the container's limit when there is one (the JDK reads cgroups), else the
     * machine's RAM.
     */
    public static long memoryBytes() {
        var os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getTotalMemorySize() : 0;
    }

    /**
     * A fifth of the process's memory, at least {@link #MIN_DEFAULT_BLOCK_CACHE}. A fixed 64 MiB made every read
     * of a working set larger than that go to a worker and the disk (GET at 0.39 of the bare server, a 3-node
     * cluster's GET at 2/3 a sixth of one node's: docs/node.md, "Defaults"). A fifth leaves room for the heap
     * (the JVM's default is a quarter; the operator gives it 40% of the pod's limit) and the memtables. The cache
     * is a HyperClockCache that grows as it fills: an idle node does not hold this memory.
     */
    public static long defaultBlockCache() {
        long share = (memoryBytes() / BLOCK_CACHE_MEMORY_DIVISOR) & -(1L << 20); // whole MiB: --help shows it exactly
        return Math.max(MIN_DEFAULT_BLOCK_CACHE, share);
    }

    public static int defaultQueueSize() {
        return NodeOption.QUEUE_SIZE.intDefault();
    }

    /** A standalone node on this port and directory with every other setting at its default. */
    public static NodeConfig defaults(int port, Path dataDir) {
        String self = "http://localhost:" + port;
        return new NodeConfig(
                port,
                dataDir,
                ClusterMembers.parseList(self),
                null,
                self,
                0,
                NodeOption.REQUEST_TIMEOUT.durationDefault(),
                defaultWorkers(),
                defaultQueueSize(),
                defaultSelectors(),
                DEFAULT_MAX_BODY,
                defaultBlockCache(),
                DEFAULT_WRITE_BUFFER,
                null,
                NodeOption.TOMBSTONE_GRACE.durationDefault(),
                NodeOption.IDLE_TIMEOUT.durationDefault(),
                NodeOption.SEND_TIMEOUT.durationDefault(),
                NodeOption.SHUTDOWN_GRACE.durationDefault(),
                ClusterSettings.defaults(),
                SecuritySettings.defaults(),
                NodeOption.DRAIN_TIME.durationDefault(),
                RackSettings.NONE,
                0);
    }

    public NodeConfig withPool(int newWorkers, int newQueueSize) {
        return with().workers(newWorkers).queueSize(newQueueSize).build();
    }

    public NodeConfig withTimeouts(Duration newIdle, Duration newSend, Duration newShutdownGrace) {
        return with().idleTimeout(newIdle)
                .sendTimeout(newSend)
                .shutdownGrace(newShutdownGrace)
                .build();
    }

    /** The same node in another cluster (tests start in-process clusters with this). */
    public NodeConfig withCluster(ClusterMembers newMembers, String newSelf) {
        return with().members(newMembers).self(newSelf).build();
    }

    /** The same node reading its members from a cluster file (tests of moves start in-process nodes with this). */
    public NodeConfig withClusterFile(Path file, ClusterMembers initial, String newSelf) {
        return with().members(initial).clusterFile(file).self(newSelf).build();
    }

    /** The port of this node's member plane (docs/security.md). */
    public int memberPort() {
        return port + security.memberPortOffset();
    }
}
