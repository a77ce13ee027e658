package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.RackSpec;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A rack of the cluster: a failure domain with its own StatefulSet. A cluster without spec.racks has one
 * {@linkplain #IMPLICIT implicit} rack, which keeps today's object names and writes no rack anywhere.
 *
 * @param name               the rack's name; empty for the implicit rack
 * @param nodeAffinityLabels node labels the rack's pods require (the zone as topology.kubernetes.io/zone), by key
 * @param drain              the rack is to hold no member
 */
public record Rack(
        String name,
        SortedMap<String, String> nodeAffinityLabels,
        Optional<Affinity> affinity,
        List<Toleration> tolerations,
        boolean drain) {
    public static final String ZONE_LABEL = "topology.kubernetes.io/zone";
    public static final Rack IMPLICIT = new Rack("", new TreeMap<>(), Optional.empty(), List.of(), false);

    public Rack {
        nodeAffinityLabels = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(nodeAffinityLabels));
        tolerations = List.copyOf(tolerations);
    }

    static Rack from(RackSpec spec) {
        var labels = new TreeMap<String, String>();
        if (spec.nodeAffinityLabels != null) {
            labels.putAll(spec.nodeAffinityLabels);
        }
        if (spec.zone != null && !spec.zone.isBlank()) {
            labels.put(ZONE_LABEL, spec.zone.trim());
        }
        return new Rack(
                spec.name,
                labels,
                Optional.ofNullable(spec.affinity),
                spec.tolerations != null ? spec.tolerations : List.of(),
                Boolean.TRUE.equals(spec.drain));
    }

    /** The rack of a cluster without spec.racks: no rack label, no DHT_RACK, the StatefulSet named like the cluster. */
    public boolean implicit() {
        return name.isEmpty();
    }

    /** Racks of a spec: the implicit one when it names none. */
    static List<Rack> of(List<RackSpec> specs) {
        if (specs == null || specs.isEmpty()) {
            return List.of(IMPLICIT);
        }
        return specs.stream().map(Rack::from).toList();
    }
}
