package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.Map;

/** Metadata of owned objects: owned by the DhtCluster, so Kubernetes' garbage collector removes them with it. */
public final class Owners {
    private Owners() {}

    /**
     * A controller reference to {@code owner} (a DhtCluster, DhtBenchmark, DhtUser or DhtBackupSchedule): the garbage
     * collector deletes the owned object with it (and a foreground deletion of the owner waits for it).
     */
    public static OwnerReference ownerReference(HasMetadata owner) {
        return new OwnerReferenceBuilder()
                .withApiVersion(owner.getApiVersion())
                .withKind(owner.getKind())
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    public static ObjectMeta metadata(DhtCluster cluster, String name) {
        return metadata(cluster, name, Labels.common(cluster.getMetadata().getName()));
    }

    /** Metadata of an object named {@code name} in {@code owner}'s namespace, controlled by it. */
    public static ObjectMeta metadata(HasMetadata owner, String name, Map<String, String> labels) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(owner.getMetadata().getNamespace())
                .withLabels(labels)
                .withOwnerReferences(ownerReference(owner))
                .build();
    }
}
