package dev.dht.operator.backup.reconciler;

import dev.dht.operator.api.v1alpha1.BackupPhase;
import dev.dht.operator.api.v1alpha1.DhtBackup;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;
import java.util.stream.Stream;

/** What both backup reconcilers read of a cluster: the DhtCluster itself and its backups that run now. */
final class ClusterBackups {
    private ClusterBackups() {}

    static Optional<DhtCluster> cluster(KubernetesClient client, String namespace, String name) {
        return Optional.ofNullable(client.resources(DhtCluster.class)
                .inNamespace(namespace)
                .withName(name)
                .get());
    }

    /** The DhtBackups of the cluster that are Running (at most one: a backup starts only when none runs). */
    static Stream<DhtBackup> running(KubernetesClient client, String namespace, String cluster) {
        return client.resources(DhtBackup.class).inNamespace(namespace).list().getItems().stream()
                .filter(b -> cluster.equals(b.getSpec().cluster)
                        && b.getStatus() != null
                        && b.getStatus().phase == BackupPhase.Running);
    }
}
