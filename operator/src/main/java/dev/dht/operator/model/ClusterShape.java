package dev.dht.operator.model;

import java.util.Map;

/**
 * How many pods each rack runs and how many of them the topology lists. Both equal the racks' targets on a steady
 * cluster; they differ while a scale is in progress (a StatefulSet grows before the topology, and shrinks after it).
 *
 * @param statefulSetReplicas each rack's StatefulSet replicas
 * @param topologyMembers     each rack's members in the topology (its ordinals 0..n-1)
 * @param topologyVersion     version of the topology ConfigMap (it grows whenever its member list changes)
 * @param partitions          each rack's rolling-update partition (absent: 0): its pods from this ordinal up take
 *                            the new pod template, those below keep the old one (rollout/MemberRoll moves it down
 *                            one member at a time)
 */
public record ClusterShape(
        Layout statefulSetReplicas, Layout topologyMembers, long topologyVersion, Map<String, Integer> partitions) {

    public ClusterShape {
        partitions = Map.copyOf(partitions);
    }

    public ClusterShape(Layout statefulSetReplicas, Layout topologyMembers, long topologyVersion) {
        this(statefulSetReplicas, topologyMembers, topologyVersion, Map.of());
    }

    public ClusterShape withPartitions(Map<String, Integer> partitions) {
        return new ClusterShape(statefulSetReplicas, topologyMembers, topologyVersion, partitions);
    }

    public int partition(String rack) {
        return partitions.getOrDefault(rack, 0);
    }

    public static ClusterShape steady(ClusterModel model, long topologyVersion) {
        var layout = model.initialLayout();
        return new ClusterShape(layout, layout, topologyVersion);
    }
}
