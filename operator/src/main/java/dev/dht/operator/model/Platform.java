package dev.dht.operator.model;

/**
 * What the desired state depends on besides the spec: facts about the operator and the Kubernetes
 * cluster it runs in.
 *
 * @param defaultNodeImage image of clusters that do not set spec.image
 * @param clusterDomain DNS domain of the Kubernetes cluster (members' URLs end in svc.{domain})
 * @param runnerImage the load-runner image: the members' profiler sidecar and the benchmark Jobs
 * @param operator where the operator's own pods are, when it runs in the cluster: the NetworkPolicies let them
 *     reach the members
 */
public record Platform(
        String defaultNodeImage, String clusterDomain, String runnerImage, java.util.Optional<OperatorPeer> operator) {
    public static final String DEFAULT_CLUSTER_DOMAIN = "cluster.local";

    /** The operator's pods: their namespace and labels. */
    public record OperatorPeer(String namespace, java.util.Map<String, String> podLabels) {
        public OperatorPeer {
            podLabels = java.util.Map.copyOf(podLabels);
        }
    }

    public Platform(String defaultNodeImage, String clusterDomain, String runnerImage) {
        this(defaultNodeImage, clusterDomain, runnerImage, java.util.Optional.empty());
    }

    public Platform {
        if (defaultNodeImage == null || defaultNodeImage.isBlank()) {
            throw new IllegalArgumentException("defaultNodeImage must not be empty");
        }
        if (clusterDomain == null || clusterDomain.isBlank()) {
            throw new IllegalArgumentException("clusterDomain must not be empty");
        }
        if (runnerImage == null || runnerImage.isBlank()) {
            throw new IllegalArgumentException("runnerImage must not be empty");
        }
    }

    /** The runner image named like the node image: same registry prefix and tag (scripts/images.sh builds both so). */
    public Platform(String defaultNodeImage, String clusterDomain) {
        this(defaultNodeImage, clusterDomain, runnerImageLike(defaultNodeImage));
    }

    static String runnerImageLike(String nodeImage) {
        if (nodeImage == null) {
            return null;
        }
        int slash = nodeImage.lastIndexOf('/');
        int colon = nodeImage.indexOf(':', slash + 1);
        String prefix = nodeImage.substring(0, slash + 1);
        String tag = colon < 0 ? "latest" : nodeImage.substring(colon + 1);
        return prefix + "dht-loadrunner:" + tag;
    }
}
