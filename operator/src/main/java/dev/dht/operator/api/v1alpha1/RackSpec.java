package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * One rack: a failure domain the nodes place replicas across (a key's replicas go to distinct racks first), run as
 * its own StatefulSet and pinned to its zone. Its name is part of each member's identity in the topology, so it never
 * changes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.zone) || !has(self.nodeAffinityLabels)",
        message = "a rack is pinned by zone or by nodeAffinityLabels, not both: put the zone into nodeAffinityLabels as"
                + " topology.kubernetes.io/zone, or drop nodeAffinityLabels",
        reason = "FieldValueForbidden")
public class RackSpec {
    /**
     * Longest "<cluster>-<rack>", the rack's StatefulSet name: the controller labels its pods with that name, a dash and
     * a revision hash of up to 10 characters, and a label value has at most 63.
     */
    public static final int MAX_STATEFUL_SET_NAME = 52;

    public static final int MAX_NAME_LENGTH = MAX_STATEFUL_SET_NAME - 2;

    @Required
    @Size(min = 1, max = MAX_NAME_LENGTH)
    @Pattern("^[a-z]([-a-z0-9]*[a-z0-9])?$")
    @JsonPropertyDescription(
            "The rack's name, a DNS label (e.g. zone-a). It names the rack's StatefulSet"
                    + " (<cluster>-<rack>) and pods (<cluster>-<rack>-<ordinal>) and goes into the member list: it never changes.")
    public String name;

    @Size(max = 63)
    @JsonPropertyDescription("Zone the rack's pods run in: required node affinity on topology.kubernetes.io/zone."
            + " Cannot change while the rack holds members (their volumes are in that zone).")
    public String zone;

    @Size(max = 8)
    @JsonPropertyDescription("Node labels the rack's pods require (required node affinity, one In term per label),"
            + " instead of zone. Cannot change while the rack holds members.")
    public Map<String, String> nodeAffinityLabels;

    @JsonPropertyDescription(
            "Affinity of this rack's pods, merged over spec.affinity part by part (node affinity,"
                    + " pod affinity, pod anti-affinity): a part set here replaces that part; the zone pinning is always added.")
    public Affinity affinity;

    @JsonPropertyDescription("Tolerations of this rack's pods, added to spec.tolerations.")
    public List<Toleration> tolerations;

    @JsonPropertyDescription("Empty the rack: its members hand their data over and leave, one at a time, highest"
            + " ordinal first; spec.replicas stays the total, so the other racks grow first to keep it. A rack is removed"
            + " from the list only once it is drained and holds no member (status.racks).")
    public Boolean drain;
}
