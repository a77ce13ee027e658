package dev.dht.operator.model;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** Label and annotation keys the operator writes, and the label sets it puts on its objects. */
public final class Labels {
    public static final String NAME = "app.kubernetes.io/name";
    public static final String INSTANCE = "app.kubernetes.io/instance";
    public static final String COMPONENT = "app.kubernetes.io/component";
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";

    public static final String APP = "dht";
    public static final String COMPONENT_NODE = "node";
    public static final String OPERATOR = "dht-operator";
    /** Selects every object this operator manages (its informers watch only these). */
    public static final String MANAGED_SELECTOR = MANAGED_BY + "=" + OPERATOR;

    /** Hash of a desired object, compared with the live one's to decide whether to write at all. */
    public static final String DESIRED_HASH = "dht.dev/desired-hash";
    /** Hash of the rendered node config on the pod template: a change rolls the pods one at a time. */
    public static final String CONFIG_HASH = "dht.dev/config-hash";
    /** On the members' pods when their client port serves TLS only (their /metrics: the plaintext metrics port). */
    public static final String CLIENT_TLS = "dht.dev/client-tls";
    /**
     * On the pod template: the hash of the ServiceAccount's cloud identity annotations, so that a changed role rolls the
     * pods (the cloud's webhook injects the identity only into new pods).
     */
    public static final String IDENTITY_HASH = "dht.dev/cloud-identity-hash";
    /** A member's rack on its pod (and its rack's StatefulSet): the node reads it as DHT_RACK (downward API). */
    public static final String RACK = "dht.dev/rack";
    /**
     * On a StatefulSet (not its pod template): made while the one-member-per-node default is in force. A cluster's
     * StatefulSet without it was made before; its placement is kept until spec.allowMultiplePerNode is set.
     */
    public static final String PLACEMENT = "dht.dev/placement-default";
    /** On a StatefulSet: hash of its pod template as desired (a rack whose template changes waits its turn to roll). */
    public static final String TEMPLATE_HASH = "dht.dev/template-hash";
    /** Version of the member list in the topology ConfigMap. */
    public static final String TOPOLOGY_VERSION = "dht.dev/topology-version";

    private Labels() {}

    /** Immutable selector of a cluster's pods (StatefulSet selector, Services, PDB). */
    public static Map<String, String> selector(String cluster) {
        var labels = new LinkedHashMap<String, String>();
        labels.put(NAME, APP);
        labels.put(INSTANCE, cluster);
        labels.put(COMPONENT, COMPONENT_NODE);
        return labels;
    }

    /** Selector of one rack's pods (its StatefulSet's); the cluster's own for the implicit rack. */
    public static Map<String, String> selector(String cluster, Rack rack) {
        var labels = selector(cluster);
        if (!rack.implicit()) {
            labels.put(RACK, rack.name());
        }
        return labels;
    }

    /** Labels of every object a cluster owns, pods included. */
    public static Map<String, String> common(String cluster) {
        var labels = selector(cluster);
        labels.put(MANAGED_BY, OPERATOR);
        return labels;
    }

    public static String selectorString(String cluster) {
        return selector(cluster).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(","));
    }
}
