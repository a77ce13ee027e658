package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.Labels;
import dev.dht.operator.replacement.MemberReplacement;
import dev.dht.operator.scaling.PodReadiness;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O of {@link MemberReplacement}: reads the members' claims when a pod asks for its replacement or is not
 * ready (only then can there be something to do), and makes the deletions it decides.
 */
final class Replacements {
    private static final Logger log = LoggerFactory.getLogger(Replacements.class);
    private final WriteMetrics metrics;

    Replacements(WriteMetrics metrics) {
        this.metrics = metrics;
    }

    void replace(DhtCluster cluster, Collection<Pod> pods, KubernetesClient client) {
        boolean maybe = pods.stream()
                .anyMatch(p -> !PodReadiness.isReady(p)
                        || (p.getMetadata().getAnnotations() != null
                                && p.getMetadata().getAnnotations().containsKey(MemberReplacement.ANNOTATION)));
        if (!maybe) {
            return;
        }
        String ns = cluster.getMetadata().getNamespace();
        Map<String, PersistentVolumeClaim> claims = new LinkedHashMap<>();
        for (PersistentVolumeClaim c : client.persistentVolumeClaims()
                .inNamespace(ns)
                .withLabels(Labels.selector(cluster.getMetadata().getName()))
                .list()
                .getItems()) {
            claims.put(c.getMetadata().getName(), c);
        }
        var deletions = MemberReplacement.decide(cluster.getMetadata().getName(), pods, claims);
        for (String claim : deletions.claims()) {
            log.info(
                    "{}/{}: replacing a member: deleting its volume claim {}",
                    ns,
                    cluster.getMetadata().getName(),
                    claim);
            metrics.write("PersistentVolumeClaim");
            client.persistentVolumeClaims().inNamespace(ns).withName(claim).delete();
        }
        for (String pod : deletions.pods()) {
            log.info(
                    "{}/{}: deleting pod {}: the StatefulSet makes it again on a new volume, and it rebuilds",
                    ns,
                    cluster.getMetadata().getName(),
                    pod);
            metrics.write("Pod");
            client.pods().inNamespace(ns).withName(pod).delete();
        }
    }
}
