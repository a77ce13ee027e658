package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;

/** Metadata of owned objects: owned by the DhtCluster, so Kubernetes' garbage collector removes them with it. */
public final class Owners {
    private Owners() {}

    public static OwnerReference ownerReference(DhtCluster cluster) {
        return new OwnerReferenceBuilder()
                .withApiVersion(cluster.getApiVersion())
                .withKind(cluster.getKind())
                .withName(cluster.getMetadata().getName())
                .withUid(cluster.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    public static ObjectMeta metadata(DhtCluster cluster, String name) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(cluster.getMetadata().getNamespace())
                .withLabels(Labels.common(cluster.getMetadata().getName()))
                .withOwnerReferences(ownerReference(cluster))
                .build();
    }
}
