package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.model.annotation.LabelSelector;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;
import java.util.ArrayList;
import java.util.List;

/** Observed state, written only by the operator. Unchanged JSON means no write (reconciler/StatusWrites). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DhtClusterStatus {
    @JsonPropertyDescription("The metadata.generation this status describes.")
    public Long observedGeneration;

    @JsonPropertyDescription("Creating, Ready, Scaling, Updating, Degraded, Failed or Restoring.")
    public Phase phase;

    @StatusReplicas
    @JsonPropertyDescription("Members' pods that exist (the scale subresource's status replicas).")
    public Integer replicas;

    @JsonPropertyDescription("Members whose pod is ready.")
    public Integer readyReplicas;

    @JsonPropertyDescription("Copies of each key: the nodes' replication factor (spec.replication.factor, default 3)"
            + " capped at spec.replicas.")
    public Integer replicationFactor;

    @LabelSelector
    @JsonPropertyDescription("Label selector of the members' pods (for the scale subresource and autoscalers).")
    public String selector;

    @JsonPropertyDescription("Version of the topology ConfigMap; it grows whenever the member list changes.")
    public Long topologyVersion;

    @JsonPropertyDescription(
            "The topology version on which every member reported its data move done (idle). While"
                    + " it differs from topologyVersion a move is in progress; the operator polls the members until they are done.")
    public Long settledTopologyVersion;

    @JsonPropertyDescription("Progress of a scale in progress; absent when none runs.")
    public ScalingStatus scaling;

    @JsonPropertyDescription("Progress of the restore the cluster was created with (spec.restoreFrom).")
    public RestoreStatus restore;

    @JsonPropertyDescription("Repair as the members report it; absent until one answered.")
    public RepairStatus repair;

    @JsonPropertyDescription(
            "Each rack of spec.racks (and a removed one still draining), in order; absent without" + " racks.")
    @io.fabric8.generator.annotation.Size(max = 16)
    public List<RackStatus> racks;

    @JsonPropertyDescription("Ready members of each rack, \"<rack> <ready>/<members>\" (the RACKS column of kubectl get"
            + " dht); absent without racks.")
    public String racksReady;

    @JsonPropertyDescription("The one release every member runs; empty while members run different releases (a roll)"
            + " or one did not answer.")
    public String release;

    @JsonPropertyDescription("The cluster feature level: the lowest level a member runs at (docs/upgrading.md).")
    public Integer featureLevel;

    @JsonPropertyDescription("Members by ordinal: those in the topology or about to enter it, then leaving ones.")
    public List<MemberStatus> members = new ArrayList<>();

    @JsonPropertyDescription("The member plane's certificates: mode, expiry dates, a CA replacement's phase.")
    public TlsStatus tls;

    @JsonPropertyDescription("Ready, Progressing, Degraded, Refused, RepairOverdue and FailureDomains, with reasons"
            + " and messages; BackupStore with spec.backup (False: a member cannot use the object store, and why);"
            + " CertificatesValid and CredentialsReady while TLS and client authentication are on.")
    public List<Condition> conditions = new ArrayList<>();

    @Override
    public String toString() {
        return "DhtClusterStatus{phase=" + phase + ", generation=" + observedGeneration + ", replicas=" + replicas
                + ", ready=" + readyReplicas + ", rf=" + replicationFactor + ", topology=" + topologyVersion
                + ", settled=" + settledTopologyVersion + ", scaling=" + scaling + ", restore=" + restore + ", repair="
                + repair
                + ", racks=" + racks + ", release=" + release + ", featureLevel=" + featureLevel
                + ", members=" + members + ", tls=" + tls + ", conditions=" + conditions + "}";
    }
}
