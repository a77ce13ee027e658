package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;

/** At most one member voluntarily down at a time (node drains, cluster upgrades). */
public final class NodeDisruptionBudget {
    private NodeDisruptionBudget() {}

    public static PodDisruptionBudget podDisruptionBudget(DhtCluster cluster, ClusterModel model) {
        return new PodDisruptionBudgetBuilder()
                .withMetadata(Owners.metadata(cluster, Names.podDisruptionBudget(model.name())))
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(1))
                .withNewSelector()
                .withMatchLabels(Labels.selector(model.name()))
                .endSelector()
                // A member that is not ready serves nothing; letting a drain evict it cannot make things worse.
                .withUnhealthyPodEvictionPolicy("AlwaysAllow")
                .endSpec()
                .build();
    }
}
