package dev.dht.operator.scaling;

import io.fabric8.kubernetes.api.model.Pod;

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
}
