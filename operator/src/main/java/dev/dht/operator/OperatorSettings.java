package dev.dht.operator;

import dev.dht.operator.model.Platform;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The operator's own settings, from environment variables (the Helm chart sets them from values).
 *
 * @param watchNamespaces namespaces whose DhtClusters it manages; empty means all namespaces
 * @param leaseNamespace where the leader-election lease lives; empty means no leader election
 * @param memberUrls where to reach members' admin APIs instead of their own URLs: {@code <namespace>/<pod>} to a
 *     base URL (an operator outside the cluster through port-forwards; tests)
 * @param self the operator's own pods (namespace and labels), when it runs in the cluster: the clusters'
 *     NetworkPolicies let them in
 */
public record OperatorSettings(
        Set<String> watchNamespaces,
        String defaultNodeImage,
        String clusterDomain,
        int httpPort,
        Optional<String> leaseNamespace,
        String runnerImage,
        Map<String, String> memberUrls,
        Optional<Platform.OperatorPeer> self) {

    public OperatorSettings {
        memberUrls = Map.copyOf(memberUrls);
    }

    /**
     * Settings with the default runner image ({@code dht-loadrunner:<version>}), not naming the operator's own pods;
     * {@code memberUrls} may be empty (members reached at their own DNS URLs).
     */
    public OperatorSettings(
            Set<String> watchNamespaces,
            String defaultNodeImage,
            String clusterDomain,
            int httpPort,
            Optional<String> leaseNamespace,
            Map<String, String> memberUrls) {
        this(
                watchNamespaces,
                defaultNodeImage,
                clusterDomain,
                httpPort,
                leaseNamespace,
                "dht-loadrunner:" + VERSION,
                memberUrls,
                Optional.empty());
    }

    public static final String VERSION = readVersion();

    /** Every variable the operator reads, with its meaning (printed by --help). */
    public static final Map<String, String> VARIABLES = new java.util.LinkedHashMap<>();

    static {
        VARIABLES.put("DHT_OPERATOR_WATCH_NAMESPACES", "comma-separated namespaces to watch; empty: all namespaces");
        VARIABLES.put(
                "DHT_OPERATOR_NODE_IMAGE",
                "node image of clusters without spec.image (default dht-node:" + VERSION + ")");
        VARIABLES.put(
                "DHT_OPERATOR_RUNNER_IMAGE",
                "load-runner image of the profiler sidecar and benchmark Jobs" + " (default dht-loadrunner:" + VERSION
                        + ")");
        VARIABLES.put("DHT_OPERATOR_CLUSTER_DOMAIN", "DNS domain of the Kubernetes cluster (default cluster.local)");
        VARIABLES.put(
                "DHT_OPERATOR_HTTP_PORT", "port of /healthz, /readyz and /metrics; 0 turns them off (default 8081)");
        VARIABLES.put("DHT_OPERATOR_LEADER_ELECTION", "true: only the holder of a Lease reconciles (default false)");
        VARIABLES.put("DHT_OPERATOR_NAMESPACE", "the operator's own namespace, where the Lease lives");
        VARIABLES.put(
                "DHT_OPERATOR_MEMBER_URLS",
                "where to reach members' admin API instead of their DNS name:"
                        + " comma-separated <namespace>/<pod>=<base URL> (an operator outside the cluster; default: none)");
        VARIABLES.put(
                "DHT_OPERATOR_POD_LABELS",
                "labels of the operator's own pods, comma-separated k=v (with"
                        + " DHT_OPERATOR_NAMESPACE): the clusters' NetworkPolicies let these pods reach the members (the Helm chart"
                        + " sets both; default: none, an operator outside the cluster)");
        VARIABLES.put("DHT_OPERATOR_LOG_LEVEL", "TRACE, DEBUG, INFO, WARN or ERROR (default INFO)");
        VARIABLES.put("DHT_OPERATOR_LOG_FORMAT", "text or json (default text)");
    }

    public static OperatorSettings fromEnv(Map<String, String> env) {
        Set<String> namespaces = Arrays.stream(
                        env.getOrDefault("DHT_OPERATOR_WATCH_NAMESPACES", "").split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toCollection(LinkedHashSet::new));
        for (String ns : namespaces) {
            if (!ns.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
                throw new IllegalArgumentException(
                        "DHT_OPERATOR_WATCH_NAMESPACES: '" + ns + "' is not a namespace name");
            }
        }
        String image = env.getOrDefault("DHT_OPERATOR_NODE_IMAGE", "").trim();
        String runner = env.getOrDefault("DHT_OPERATOR_RUNNER_IMAGE", "").trim();
        String domain = env.getOrDefault("DHT_OPERATOR_CLUSTER_DOMAIN", "").trim();
        int port = parsePort(env.getOrDefault("DHT_OPERATOR_HTTP_PORT", "8081").trim());
        String election =
                env.getOrDefault("DHT_OPERATOR_LEADER_ELECTION", "false").trim();
        if (!election.equals("true") && !election.equals("false")) {
            throw new IllegalArgumentException(
                    "DHT_OPERATOR_LEADER_ELECTION must be true or false, not '" + election + "'");
        }
        Optional<String> lease = Optional.empty();
        if (election.equals("true")) {
            String ns = env.getOrDefault("DHT_OPERATOR_NAMESPACE", "").trim();
            if (ns.isEmpty()) {
                throw new IllegalArgumentException("DHT_OPERATOR_LEADER_ELECTION=true needs DHT_OPERATOR_NAMESPACE"
                        + " (the namespace of the Lease; the Helm chart sets it from the pod's namespace)");
            }
            lease = Optional.of(ns);
        }
        return new OperatorSettings(
                Set.copyOf(namespaces),
                image.isEmpty() ? "dht-node:" + VERSION : image,
                domain.isEmpty() ? Platform.DEFAULT_CLUSTER_DOMAIN : domain,
                port,
                lease,
                runner.isEmpty() ? "dht-loadrunner:" + VERSION : runner,
                parseMemberUrls(env.getOrDefault("DHT_OPERATOR_MEMBER_URLS", "")),
                parseSelf(
                        env.getOrDefault("DHT_OPERATOR_POD_LABELS", ""),
                        env.getOrDefault("DHT_OPERATOR_NAMESPACE", "")));
    }

    public static Optional<Platform.OperatorPeer> parseSelf(String labels, String namespace) {
        var out = parseEntries(
                labels,
                "DHT_OPERATOR_POD_LABELS",
                "([a-z0-9.-]+/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?",
                "([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?",
                "is not a label k=v");
        if (out.isEmpty()) {
            return Optional.empty();
        }
        if (namespace.isBlank()) {
            throw new IllegalArgumentException("DHT_OPERATOR_POD_LABELS needs DHT_OPERATOR_NAMESPACE (the operator's"
                    + " namespace; the Helm chart sets it from the pod's)");
        }
        return Optional.of(new Platform.OperatorPeer(namespace.trim(), out));
    }

    static Map<String, String> parseMemberUrls(String value) {
        return parseEntries(
                value,
                "DHT_OPERATOR_MEMBER_URLS",
                "[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-a-z0-9]*[a-z0-9])?",
                "https?://[^\\s/]+/?",
                "is not <namespace>/<pod>=<base URL>, e.g. dht/dht-0=http://127.0.0.1:18080");
    }

    /**
     * The {@code key=value} entries of a comma-separated {@code variable}, in their order (blank entries skipped,
     * both sides trimmed); an entry whose key or value does not match its pattern is an error that names the
     * variable, the entry and {@code what} it should have been.
     */
    private static Map<String, String> parseEntries(
            String value, String variable, String keyPattern, String valuePattern, String what) {
        var out = new java.util.LinkedHashMap<String, String>();
        for (String entry : value.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            int eq = entry.indexOf('=');
            String key = eq < 0 ? "" : entry.substring(0, eq).trim();
            String val = eq < 0 ? "" : entry.substring(eq + 1).trim();
            if (!key.matches(keyPattern) || !val.matches(valuePattern)) {
                throw new IllegalArgumentException(variable + ": '" + entry.trim() + "' " + what);
            }
            out.put(key, val);
        }
        return out;
    }

    public Platform platform() {
        return new Platform(defaultNodeImage, clusterDomain, runnerImage, self);
    }

    private static int parsePort(String value) {
        try {
            int port = Integer.parseInt(value);
            if (port >= 0 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException(
                "DHT_OPERATOR_HTTP_PORT must be a port number (0-65535), not '" + value + "'");
    }

    private static String readVersion() {
        try (InputStream in = OperatorSettings.class.getResourceAsStream("version.properties")) {
            var props = new Properties();
            if (in != null) {
                props.load(in);
            }
            return props.getProperty("version", "dev");
        } catch (IOException e) {
            return "dev";
        }
    }
}
