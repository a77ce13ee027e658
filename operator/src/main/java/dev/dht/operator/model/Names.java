package dev.dht.operator.model;

/**
 * Names of everything a cluster owns, derived from the cluster's name. They never change for a
 * cluster's lifetime (a StatefulSet's serviceName and selector are immutable).
 */
public final class Names {
  /** Port of the node's HTTP API, /metrics and admin endpoints inside the pod. */
  public static final int NODE_PORT = 8080;
  public static final String PORT_NAME = "http";

  private Names() {}

  public static String statefulSet(String cluster) {
    return cluster;
  }

  /** The headless Service that gives each member a stable DNS name (peer discovery). */
  public static String headlessService(String cluster) {
    return cluster + "-headless";
  }

  /** The client Service: one address for all members. */
  public static String clientService(String cluster) {
    return cluster;
  }

  /** ConfigMap with the member list, mounted as the node's --cluster-file (re-read live). */
  public static String topologyConfigMap(String cluster) {
    return cluster + "-topology";
  }

  /** ConfigMap with the node's settings as environment variables (its hash rolls the pods). */
  public static String configConfigMap(String cluster) {
    return cluster + "-config";
  }

  public static String podDisruptionBudget(String cluster) {
    return cluster;
  }

  public static String serviceAccount(String cluster) {
    return cluster + "-node";
  }

  public static String pod(String cluster, int ordinal) {
    return statefulSet(cluster) + "-" + ordinal;
  }

  /** The PVC the StatefulSet controller creates for a member: {template name}-{pod name}. */
  public static String dataVolumeClaim(String cluster, int ordinal) {
    return NodeStatefulSet.DATA_VOLUME + "-" + pod(cluster, ordinal);
  }

  /** A member's base URL: its stable DNS name through the headless Service. */
  public static String memberUrl(String cluster, String namespace, String clusterDomain, int ordinal) {
    return memberUrl(pod(cluster, ordinal), cluster, namespace, clusterDomain);
  }

  static String memberUrl(String podNameOrVar, String cluster, String namespace, String clusterDomain) {
    return "http://" + podNameOrVar + "." + headlessService(cluster) + "." + namespace + ".svc." + clusterDomain
        + ":" + NODE_PORT;
  }
}
