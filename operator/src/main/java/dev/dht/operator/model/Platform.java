package dev.dht.operator.model;

/**
 * What the desired state depends on besides the spec: facts about the operator and the Kubernetes
 * cluster it runs in.
 *
 * @param defaultNodeImage image of clusters that do not set spec.image
 * @param clusterDomain DNS domain of the Kubernetes cluster (members' URLs end in svc.{domain})
 */
public record Platform(String defaultNodeImage, String clusterDomain) {
  public static final String DEFAULT_CLUSTER_DOMAIN = "cluster.local";

  public Platform {
    if (defaultNodeImage == null || defaultNodeImage.isBlank()) {
      throw new IllegalArgumentException("defaultNodeImage must not be empty");
    }
    if (clusterDomain == null || clusterDomain.isBlank()) {
      throw new IllegalArgumentException("clusterDomain must not be empty");
    }
  }
}
