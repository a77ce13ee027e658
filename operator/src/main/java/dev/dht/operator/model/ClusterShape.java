package dev.dht.operator.model;

import java.util.Set;

/**
 * How many pods each rack runs and how many of them the topology lists. Both equal the racks' targets on a steady
 * cluster; they differ while a scale is in progress (a StatefulSet grows before the topology, and shrinks after it).
 *
 * @param statefulSetReplicas each rack's StatefulSet replicas
 * @param topologyMembers     each rack's members in the topology (its ordinals 0..n-1)
 * @param topologyVersion     version of the topology ConfigMap (it grows whenever its member list changes)
 * @param rollHeld            racks whose pods must not take a new template yet: an earlier rack is still rolling
 *                            (their StatefulSet's partition holds every pod)
 */
public record ClusterShape(Layout statefulSetReplicas, Layout topologyMembers, long topologyVersion,
    Set<String> rollHeld) {

  public ClusterShape {
    rollHeld = Set.copyOf(rollHeld);
  }

  public ClusterShape(Layout statefulSetReplicas, Layout topologyMembers, long topologyVersion) {
    this(statefulSetReplicas, topologyMembers, topologyVersion, Set.of());
  }

  public static ClusterShape steady(ClusterModel model, long topologyVersion) {
    var layout = model.initialLayout();
    return new ClusterShape(layout, layout, topologyVersion);
  }
}
