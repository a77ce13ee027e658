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
 * @param shape the StatefulSets' replicas, the topology's members and its version, racks held back from a roll
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
        List<StatefulSet> statefulSets) {

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
                model.racks().stream()
                        .map(rack -> Hashing.stamp(NodeStatefulSet.statefulSet(
                                cluster,
                                model,
                                rack,
                                shape.statefulSetReplicas().get(rack.name()),
                                shape.partition(rack.name()),
                                configHash)))
                        .toList());
    }

    /** Each rack's desired pod template hash ({@link Labels#TEMPLATE_HASH}; none for the implicit rack). */
    public java.util.Map<String, String> templateHashes() {
        var out = new java.util.LinkedHashMap<String, String>();
        for (int i = 0; i < statefulSets.size(); i++) {
            var annotations = statefulSets.get(i).getMetadata().getAnnotations();
            String hash = annotations == null ? null : annotations.get(Labels.TEMPLATE_HASH);
            if (hash != null) {
                out.put(model.racks().get(i).name(), hash);
            }
        }
        return out;
    }

    /** The StatefulSet of a cluster without racks (the implicit rack's). */
    public StatefulSet statefulSet() {
        return statefulSets.getFirst();
    }

    /** Version written into the topology ConfigMap and the status. */
    public long topologyVersion() {
        return shape.topologyVersion();
    }

    /**
     * The order to apply them in: what the pods reference (identity, config, topology, DNS) before
     * the StatefulSets that create the pods, rack by rack in the racks' order.
     */
    public List<HasMetadata> inApplyOrder() {
        var out = new java.util.ArrayList<HasMetadata>(
                List.of(serviceAccount, config, topology, headlessService, clientService, podDisruptionBudget));
        out.addAll(statefulSets);
        return List.copyOf(out);
    }
}
