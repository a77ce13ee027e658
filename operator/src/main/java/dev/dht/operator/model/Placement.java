package dev.dht.operator.model;

import java.util.Map;
import java.util.Optional;

/**
 * Where the members' pods may run relative to each other (spec.allowMultiplePerNode), and what a cluster made before
 * that setting existed keeps.
 */
public enum Placement {
    /** One member per Kubernetes node (required pod anti-affinity); without racks, members spread over zones. */
    ONE_PER_NODE,
    /** spec.allowMultiplePerNode: members only prefer distinct nodes (a single-node cluster). */
    SHARED,
    /**
     * A cluster whose StatefulSet was made before the one-per-node default, with allowMultiplePerNode unset: its pod
     * template stays exactly as it was (preferred anti-affinity, or spec.affinity instead of it). Adding the required
     * anti-affinity would restart every member, and on a cluster with fewer nodes than members leave pods Pending.
     */
    KEPT;

    /** The value the StatefulSet carries under {@link Labels#PLACEMENT} once built without {@link #KEPT}. */
    public static final String MARK = "one-per-node";

    /** From the spec alone: what a new cluster gets. */
    static Placement of(Optional<Boolean> allowMultiplePerNode) {
        return allowMultiplePerNode.orElse(false) ? SHARED : ONE_PER_NODE;
    }

    /**
     * The placement to build: the spec's, unless the setting is unset and the cluster's (only, implicit-rack)
     * StatefulSet exists without the mark, i.e. was made by an operator before this default.
     *
     * @param liveAnnotations the annotations of the live StatefulSet of a cluster without racks; empty if none exists
     */
    public static Placement decide(ClusterModel model, Optional<Map<String, String>> liveAnnotations) {
        boolean kept = model.allowMultiplePerNode().isEmpty()
                && model.racks().getFirst().implicit()
                && liveAnnotations.isPresent()
                && !MARK.equals(liveAnnotations.get().get(Labels.PLACEMENT));
        return kept ? KEPT : of(model.allowMultiplePerNode());
    }
}
