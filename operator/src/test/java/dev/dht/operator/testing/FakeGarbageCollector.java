package dev.dht.operator.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * Plays the garbage collector of kube-controller-manager (absent under kube-api-test) for one
 * namespace: deletes every object whose owners (by ownerReference name and uid) are all gone,
 * repeatedly, so that grandchildren (pods, PVCs of a StatefulSet) follow too. It only reads
 * ownerReferences, so it tests that the operator wrote them right.
 */
public final class FakeGarbageCollector {
    private static final List<Class<? extends HasMetadata>> KINDS = List.of(
            io.fabric8.kubernetes.api.model.apps.StatefulSet.class,
            io.fabric8.kubernetes.api.model.Service.class,
            io.fabric8.kubernetes.api.model.ConfigMap.class,
            io.fabric8.kubernetes.api.model.ServiceAccount.class,
            io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget.class,
            io.fabric8.kubernetes.api.model.Pod.class,
            io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class,
            io.fabric8.kubernetes.api.model.batch.v1.Job.class,
            io.fabric8.kubernetes.api.model.Secret.class,
            io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class);

    private final KubernetesClient client;
    private final String namespace;

    public FakeGarbageCollector(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** Deletes orphans until none is left; returns how many it deleted. */
    public int collect() {
        int total = 0;
        int deleted;
        do {
            deleted = 0;
            for (var kind : KINDS) {
                for (HasMetadata object :
                        client.resources(kind).inNamespace(namespace).list().getItems()) {
                    var owners = object.getMetadata().getOwnerReferences();
                    if (object.getMetadata().getDeletionTimestamp() == null
                            && owners != null
                            && !owners.isEmpty()
                            && owners.stream().noneMatch(this::exists)) {
                        client.resource(object).delete();
                        deleted++;
                    }
                }
            }
            total += deleted;
        } while (deleted > 0);
        return total;
    }

    private boolean exists(OwnerReference owner) {
        var live = client.genericKubernetesResources(owner.getApiVersion(), owner.getKind())
                .inNamespace(namespace)
                .withName(owner.getName())
                .get();
        return live != null && owner.getUid().equals(live.getMetadata().getUid());
    }
}
