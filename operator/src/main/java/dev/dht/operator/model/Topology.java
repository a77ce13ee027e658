package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The member list the nodes read from their --cluster-file, one member a line: {@code URL}, or with racks
 * {@code RACK=URL} on every line. Nodes re-read it when the mounted ConfigMap changes, so a topology change does not
 * restart pods (it is not part of the config hash). Every change of the list gets a new, larger version.
 */
public final class Topology {
    public static final String MEMBERS_KEY = "members";

    private Topology() {}

    /** The version of {@code members}: the current one if the list is unchanged, else one more. */
    public static long version(List<String> members, Optional<ConfigMap> current, Optional<Long> statusVersion) {
        long known = statusVersion.orElse(0L);
        if (current.isEmpty()) {
            return known + 1;
        }
        long currentVersion = currentVersion(current.get()).orElse(0L);
        if (members(current.get()).equals(members) && currentVersion > 0) {
            return currentVersion;
        }
        return Math.max(known, currentVersion) + 1;
    }

    public static Optional<Long> currentVersion(ConfigMap configMap) {
        var annotations = configMap.getMetadata().getAnnotations();
        try {
            return Optional.ofNullable(annotations == null ? null : annotations.get(Labels.TOPOLOGY_VERSION))
                    .map(Long::parseLong);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Members in a topology ConfigMap, parsed the way the node parses its cluster file. */
    public static List<String> members(ConfigMap configMap) {
        Map<String, String> data = configMap.getData();
        String file = data == null ? null : data.get(MEMBERS_KEY);
        if (file == null) {
            return List.of();
        }
        return file.lines()
                .map(String::trim)
                .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList();
    }

    /** The URL of a member line ({@code URL} or {@code RACK=URL}). */
    public static String urlOf(String line) {
        int eq = line.indexOf('=');
        int scheme = line.indexOf("://");
        return eq >= 0 && (scheme < 0 || eq < scheme) ? line.substring(eq + 1).trim() : line.trim();
    }

    /** The members a topology ConfigMap lists (lines that name no member of the cluster are left out). */
    public static List<Member> parse(String cluster, ConfigMap configMap) {
        return members(configMap).stream()
                .map(l -> Names.memberOfLine(cluster, l))
                .flatMap(Optional::stream)
                .toList();
    }

    static String file(ClusterModel model, List<String> members, long version) {
        var out = new StringBuilder()
                .append("# dht topology of DhtCluster ")
                .append(model.namespace())
                .append('/')
                .append(model.name())
                .append(", version ")
                .append(version)
                .append(" (written by dht-operator; do not edit)\n");
        members.forEach(m -> out.append(m).append('\n'));
        return out.toString();
    }

    /** The topology listing these members (each rack's first ones). */
    public static ConfigMap configMap(DhtCluster cluster, ClusterModel model, Layout layout, long version) {
        var members = model.topologyLines(layout);
        var metadata = Owners.metadata(cluster, Names.topologyConfigMap(model.name()));
        metadata.setAnnotations(new java.util.LinkedHashMap<>(Map.of(Labels.TOPOLOGY_VERSION, Long.toString(version))));
        return new ConfigMapBuilder()
                .withMetadata(metadata)
                .withData(Map.of(MEMBERS_KEY, file(model, members, version)))
                .build();
    }
}
