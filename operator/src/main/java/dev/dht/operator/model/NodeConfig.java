package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.NodeOptions;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The node's settings rendered as environment variables (the node reads every option from
 * DHT_<OPTION>, JVM options from JAVA_TOOL_OPTIONS), kept in a ConfigMap the pods load with envFrom.
 * Its hash goes on the pod template, so any change rolls the pods one at a time.
 */
public final class NodeConfig {
    public static final String PROFILE_DIR = NodeStatefulSet.DATA_DIR + "/profiles";
    /** The node's --replication-factor: it must not change while the members move data (see scaling/FactorHold). */
    public static final String REPLICATION_FACTOR = NodeOptions.Env.REPLICATION_FACTOR;
    /** The node's --drain-time: how long a stopping member moves its clients away before it stops listening. */
    public static final String DRAIN_TIME = NodeOptions.Env.DRAIN_TIME;
    /**
     * The node's --feature-level (docs/upgrading.md). Set to 2 only for clusters with racks, which need it (a member
     * refuses a racked member list below it) and which no release before 0.2.0 could run: a cluster without racks keeps
     * the level its members found, so an operator upgrade changes nothing in its pods.
     */
    public static final String FEATURE_LEVEL = NodeOptions.Env.FEATURE_LEVEL;

    static final int RACKS_FEATURE_LEVEL = 2;
    /** Default heap share of the memory limit: RocksDB's block cache and memtables are native memory. */
    static final String DEFAULT_HEAP = "-XX:MaxRAMPercentage=40.0";

    private NodeConfig() {}

    public static SortedMap<String, String> environment(ClusterModel model) {
        var env = new TreeMap<String, String>();
        env.put(REPLICATION_FACTOR, Integer.toString(model.replicationFactor()));
        // The member port's certificates (mutual TLS), or plaintext with spec.tls.mode Disabled; the tokens file.
        env.putAll(NodeSecurity.environment(model.security()));
        env.put(DRAIN_TIME, NodeStatefulSet.DRAIN_SECONDS + "s");
        if (model.hasRacks()) {
            env.put(FEATURE_LEVEL, Integer.toString(RACKS_FEATURE_LEVEL));
        }
        model.blockCacheBytes().ifPresent(v -> env.put(NodeOptions.Env.BLOCK_CACHE, Long.toString(v)));
        model.writeBufferBytes().ifPresent(v -> env.put(NodeOptions.Env.WRITE_BUFFER, Long.toString(v)));
        model.requestTimeout().ifPresent(v -> env.put(NodeOptions.Env.REQUEST_TIMEOUT, v));
        model.workers().ifPresent(v -> env.put(NodeOptions.Env.WORKERS, Integer.toString(v)));
        model.queueSize().ifPresent(v -> env.put(NodeOptions.Env.QUEUE_SIZE, Integer.toString(v)));
        model.maxBodyBytes().ifPresent(v -> env.put(NodeOptions.Env.MAX_BODY, Long.toString(v)));
        model.tombstoneGrace().ifPresent(v -> env.put(NodeOptions.Env.TOMBSTONE_GRACE, v));
        env.put(NodeOptions.Env.REPAIR_INTERVAL, model.repair().nodeInterval());
        env.put(NodeOptions.Env.REPAIR_RATE, Long.toString(model.repair().rate()));
        if (model.profilerEnabled()) {
            env.put(NodeOptions.Env.PROFILE_DIR, PROFILE_DIR);
        }
        env.putAll(model.backup().environment());
        env.put("JAVA_TOOL_OPTIONS", String.join(" ", jvmOptions(model)));
        return env;
    }

    static List<String> jvmOptions(ClusterModel model) {
        var options = new ArrayList<String>();
        model.heapBytes()
                .ifPresentOrElse(
                        heap -> {
                            options.add("-Xms" + jvmSize(heap));
                            options.add("-Xmx" + jvmSize(heap));
                        },
                        () -> options.add(DEFAULT_HEAP));
        // Let Kubernetes restart a node that ran out of heap instead of limping on.
        options.add("-XX:+ExitOnOutOfMemoryError");
        if (model.profilerEnabled()) {
            // async-profiler attributes samples to the right frames only with these.
            options.add("-XX:+UnlockDiagnosticVMOptions");
            options.add("-XX:+DebugNonSafepoints");
        }
        options.addAll(model.jvmOptions());
        return options;
    }

    /** Bytes in the JVM's size syntax, in the largest unit that divides them exactly. */
    static String jvmSize(long bytes) {
        long gi = 1L << 30, mi = 1L << 20, ki = 1L << 10;
        if (bytes % gi == 0) return bytes / gi + "g";
        if (bytes % mi == 0) return bytes / mi + "m";
        if (bytes % ki == 0) return bytes / ki + "k";
        return Long.toString(bytes);
    }

    public static String hash(Map<String, String> environment) {
        return Hashing.ofJson(new TreeMap<>(environment));
    }

    public static ConfigMap configMap(DhtCluster cluster, ClusterModel model) {
        return new ConfigMapBuilder()
                .withMetadata(Owners.metadata(cluster, Names.configConfigMap(model.name())))
                .withData(environment(model))
                .build();
    }
}
