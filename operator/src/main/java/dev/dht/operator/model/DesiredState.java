package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.List;

/**
 * Everything a cluster should own, built from its spec alone (plus the topology version, which
 * only grows). Pure: no I/O, deterministic, every object stamped with the hash of its content.
 *
 * @param shape the StatefulSet's replicas, the topology's members and its version
 * @param configHash hash of the node config on the pod template
 */
public record DesiredState(
    ClusterModel model,
    ClusterShape shape,
    String configHash,
    ServiceAccount serviceAccount,
    ConfigMap config,
    ConfigMap topology,
    Service headlessService,
    Service clientService,
    PodDisruptionBudget podDisruptionBudget,
    StatefulSet statefulSet) {

  /** A steady cluster: every member runs and is in the topology. */
  public static DesiredState of(DhtCluster cluster, ClusterModel model, long topologyVersion) {
    return of(cluster, model, ClusterShape.steady(model, topologyVersion));
  }

  public static DesiredState of(DhtCluster cluster, ClusterModel model, ClusterShape shape) {
    var config = NodeConfig.configMap(cluster, model);
    String configHash = NodeConfig.hash(config.getData());
    return new DesiredState(
        model,
        shape,
        configHash,
        Hashing.stamp(NodeServiceAccount.serviceAccount(cluster, model)),
        Hashing.stamp(config),
        Hashing.stamp(Topology.configMap(cluster, model, shape.topologyMembers(), shape.topologyVersion())),
        Hashing.stamp(NodeServices.headless(cluster, model)),
        Hashing.stamp(NodeServices.client(cluster, model)),
        Hashing.stamp(NodeDisruptionBudget.podDisruptionBudget(cluster, model)),
        Hashing.stamp(NodeStatefulSet.statefulSet(cluster, model, shape.statefulSetReplicas(), configHash)));
  }

  /** Version written into the topology ConfigMap and the status. */
  public long topologyVersion() {
    return shape.topologyVersion();
  }

  /**
   * The order to apply them in: what the pods reference (identity, config, topology, DNS) before
   * the StatefulSet that creates the pods.
   */
  public List<HasMetadata> inApplyOrder() {
    return List.of(serviceAccount, config, topology, headlessService, clientService, podDisruptionBudget,
        statefulSet);
  }
}
