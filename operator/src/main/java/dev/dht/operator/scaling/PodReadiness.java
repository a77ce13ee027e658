package dev.dht.operator.scaling;

import dev.dht.operator.model.Member;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.List;

/** A pod's readiness as the decisions and the status read it. */
public final class PodReadiness {
    private PodReadiness() {}

    /** Ready as the kubelet reports it, and not on its way out. */
    public static boolean isReady(Pod pod) {
        if (pod == null
                || pod.getMetadata().getDeletionTimestamp() != null
                || pod.getStatus() == null
                || pod.getStatus().getConditions() == null) {
            return false;
        }
        return pod.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The pod names of the cluster's members whose pod is missing or not ready, in the members' order. */
    public static List<String> unready(String cluster, Collection<Member> members, Collection<Pod> pods) {
        return members.stream()
                .map(m -> m.pod(cluster))
                .filter(name ->
                        pods.stream().noneMatch(p -> name.equals(p.getMetadata().getName()) && isReady(p)))
                .toList();
    }
}
