package dev.dht.operator.model;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeAffinityBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.PodAntiAffinity;
import io.fabric8.kubernetes.api.model.PodAntiAffinityBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a rack's pods may run: its zone pinning (required node affinity), one member per Kubernetes node (required
 * pod anti-affinity, or only preferred with spec.allowMultiplePerNode), without racks a spread over zones, and the
 * user's affinity merged part by part (a rack's over the cluster's over the default).
 */
public final class PodPlacement {
    public static final String HOSTNAME = "kubernetes.io/hostname";

    private PodPlacement() {}

    public static Affinity affinity(ClusterModel model, Rack rack) {
        String cluster = model.name();
        if (model.placement() == Placement.KEPT) {
            return model.affinity().orElseGet(() -> preferDistinctHosts(cluster));
        }
        Optional<Affinity> own = rack.affinity();
        Optional<Affinity> spec = model.affinity();
        var node = own.map(Affinity::getNodeAffinity)
                .or(() -> spec.map(Affinity::getNodeAffinity))
                .orElse(null);
        var pod = own.map(Affinity::getPodAffinity)
                .or(() -> spec.map(Affinity::getPodAffinity))
                .orElse(null);
        var anti = own.map(Affinity::getPodAntiAffinity)
                .or(() -> spec.map(Affinity::getPodAntiAffinity))
                .orElseGet(() -> model.placement() == Placement.ONE_PER_NODE
                        ? onePerHost(cluster)
                        : preferDistinctHosts(cluster).getPodAntiAffinity());
        return new AffinityBuilder()
                .withNodeAffinity(pinned(node, rack))
                .withPodAffinity(pod)
                .withPodAntiAffinity(anti)
                .build();
    }

    /**
     * Without racks and with one member per node: spread the members over zones, as a preference only
     * (ScheduleAnyway): with DoNotSchedule a node without a zone label could take no member at all. Racks pin zones
     * themselves.
     */
    public static List<TopologySpreadConstraint> spread(ClusterModel model, Rack rack) {
        if (model.placement() != Placement.ONE_PER_NODE || !rack.implicit()) {
            return List.of();
        }
        return List.of(new TopologySpreadConstraintBuilder()
                .withMaxSkew(1)
                .withTopologyKey(Rack.ZONE_LABEL)
                .withWhenUnsatisfiable("ScheduleAnyway")
                .withNewLabelSelector()
                .withMatchLabels(Labels.selector(model.name()))
                .endLabelSelector()
                .build());
    }

    /** Required: no two members of the cluster on one Kubernetes node, so a node's loss takes at most one replica. */
    static PodAntiAffinity onePerHost(String cluster) {
        return new PodAntiAffinityBuilder()
                .addNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withNewLabelSelector()
                .withMatchLabels(Labels.selector(cluster))
                .endLabelSelector()
                .withTopologyKey(HOSTNAME)
                .endRequiredDuringSchedulingIgnoredDuringExecution()
                .build();
    }

    /** The placement before one-member-per-node became the default, and with allowMultiplePerNode: a preference. */
    static Affinity preferDistinctHosts(String cluster) {
        return new AffinityBuilder()
                .withNewPodAntiAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution()
                .withWeight(100)
                .withNewPodAffinityTerm()
                .withNewLabelSelector()
                .withMatchLabels(Labels.selector(cluster))
                .endLabelSelector()
                .withTopologyKey(HOSTNAME)
                .endPodAffinityTerm()
                .endPreferredDuringSchedulingIgnoredDuringExecution()
                .endPodAntiAffinity()
                .build();
    }

    /**
     * The rack's node labels as required node affinity, ANDed into each of the user's required terms (terms are ORed,
     * a term's expressions ANDed), so that no term lets a pod out of its zone.
     */
    static NodeAffinity pinned(NodeAffinity node, Rack rack) {
        if (rack.nodeAffinityLabels().isEmpty()) {
            return node;
        }
        var pins = new ArrayList<NodeSelectorRequirement>();
        rack.nodeAffinityLabels()
                .forEach((key, value) -> pins.add(new NodeSelectorRequirementBuilder()
                        .withKey(key)
                        .withOperator("In")
                        .withValues(value)
                        .build()));
        var builder = node == null ? new NodeAffinityBuilder() : new NodeAffinityBuilder(node);
        var required = node == null ? null : node.getRequiredDuringSchedulingIgnoredDuringExecution();
        var terms = new ArrayList<NodeSelectorTerm>();
        if (required == null
                || required.getNodeSelectorTerms() == null
                || required.getNodeSelectorTerms().isEmpty()) {
            terms.add(new NodeSelectorTermBuilder().withMatchExpressions(pins).build());
        } else {
            for (NodeSelectorTerm term : required.getNodeSelectorTerms()) {
                var expressions = new ArrayList<NodeSelectorRequirement>(
                        term.getMatchExpressions() == null ? List.of() : term.getMatchExpressions());
                expressions.addAll(pins);
                terms.add(new NodeSelectorTermBuilder(term)
                        .withMatchExpressions(expressions)
                        .build());
            }
        }
        return builder.withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withNodeSelectorTerms(terms)
                .endRequiredDuringSchedulingIgnoredDuringExecution()
                .build();
    }
}
