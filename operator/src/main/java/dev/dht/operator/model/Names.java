package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.NodeOptions;

/**
 * Names of everything a cluster owns, derived from the cluster's name. They never change for a
 * cluster's lifetime (a StatefulSet's serviceName and selector are immutable).
 */
public final class Names {
    /** Port of the node's HTTP API, /metrics and admin endpoints inside the pod: the node's default --port. */
    public static final int NODE_PORT = NodeOptions.Default.PORT;

    public static final String PORT_NAME = "http";

    private Names() {}

    public static String statefulSet(String cluster) {
        return cluster;
    }

    /** A rack's StatefulSet: {@code <cluster>-<rack>}, or the cluster's name for the implicit rack. */
    public static String statefulSet(String cluster, String rack) {
        return rack.isEmpty() ? cluster : cluster + "-" + rack;
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

    public static String pod(String cluster, String rack, int ordinal) {
        return statefulSet(cluster, rack) + "-" + ordinal;
    }

    /**
     * The member a pod name stands for: {@code <cluster>-<ordinal>} (no racks) or {@code <cluster>-<rack>-<ordinal>};
     * empty for any other name. Callers look only at the cluster's own pods (its instance label).
     */
    public static java.util.Optional<Member> member(String cluster, String pod) {
        String prefix = cluster + "-";
        if (pod == null || !pod.startsWith(prefix)) {
            return java.util.Optional.empty();
        }
        String rest = pod.substring(prefix.length());
        int dash = rest.lastIndexOf('-');
        String digits = rest.substring(dash + 1);
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit) || digits.length() > 9 || dash == 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new Member(dash < 0 ? "" : rest.substring(0, dash), Integer.parseInt(digits)));
    }

    /** The member a topology line stands for ({@code URL} or {@code RACK=URL}): its host's first label is the pod. */
    public static java.util.Optional<Member> memberOfLine(String cluster, String line) {
        String url = Topology.urlOf(line);
        int start = url.indexOf("://");
        String host = url.substring(start < 0 ? 0 : start + 3);
        int dot = host.indexOf('.');
        return member(cluster, dot < 0 ? host : host.substring(0, dot));
    }

    /** The PVC the StatefulSet controller creates for a member: {template name}-{pod name}. */
    public static String dataVolumeClaim(String cluster, int ordinal) {
        return NodeStatefulSet.DATA_VOLUME + "-" + pod(cluster, ordinal);
    }

    /** A member's base URL: its stable DNS name through the headless Service. */
    public static String memberUrl(String cluster, String namespace, String clusterDomain, int ordinal) {
        return memberUrl(pod(cluster, ordinal), cluster, namespace, clusterDomain);
    }

    public static String memberUrl(String cluster, String namespace, String clusterDomain, Member member) {
        return memberUrl(member.pod(cluster), cluster, namespace, clusterDomain);
    }

    /** A member's URL from its pod's name (or a variable standing for it). */
    public static String memberUrl(String podNameOrVar, String cluster, String namespace, String clusterDomain) {
        return "http://" + memberHost(podNameOrVar, cluster, namespace, clusterDomain) + ":" + NODE_PORT;
    }

    /** A member's stable DNS name through the headless Service, from its pod's name (or a variable standing for it). */
    public static String memberHost(String podNameOrVar, String cluster, String namespace, String clusterDomain) {
        return podNameOrVar + "." + headlessService(cluster) + "." + namespace + ".svc." + clusterDomain;
    }
}
