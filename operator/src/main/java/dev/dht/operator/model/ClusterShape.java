package dev.dht.operator.model;

/**
 * How many pods run and how many of them the topology lists. Both equal spec.replicas on a steady cluster; they
 * differ while a scale is in progress (the StatefulSet grows before the topology, and shrinks after it).
 *
 * @param topologyVersion version of the topology ConfigMap (it grows whenever its member list changes)
 */
public record ClusterShape(int statefulSetReplicas, int topologyMembers, long topologyVersion) {

  public static ClusterShape steady(ClusterModel model, long topologyVersion) {
    return new ClusterShape(model.replicas(), model.replicas(), topologyVersion);
  }
}
