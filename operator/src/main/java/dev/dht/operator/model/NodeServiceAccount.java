package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;

/**
 * The members' own identity, with no Kubernetes API access (no token is mounted, no role is bound); with
 * spec.backup.storage.cloudIdentity, the annotations that give it a cloud identity (IRSA's role ARN). The clouds'
 * webhooks inject their own projected token into the pods, whatever automountServiceAccountToken says.
 */
public final class NodeServiceAccount {
    private NodeServiceAccount() {}

    public static ServiceAccount serviceAccount(DhtCluster cluster, ClusterModel model) {
        var metadata = Owners.metadata(cluster, Names.serviceAccount(model.name()));
        var annotations = model.backup().serviceAccountAnnotations();
        if (!annotations.isEmpty()) {
            metadata.setAnnotations(new java.util.TreeMap<>(annotations));
        }
        return new ServiceAccountBuilder()
                .withMetadata(metadata)
                .withAutomountServiceAccountToken(false)
                .build();
    }
}
