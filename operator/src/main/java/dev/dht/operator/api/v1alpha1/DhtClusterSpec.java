package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;
import java.util.List;
import java.util.Map;

/** Desired state of a {@link DhtCluster}. Defaults live in the schema (see {@link Defaults}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.replication) || !has(self.replication.factor) || self.replication.factor <= self.replicas",
        // A static message: a messageExpression quoting the values exceeds the API server's CEL cost budget.
        message = "spec.replication.factor must not exceed spec.replicas (every key is stored on factor distinct"
                + " members): lower spec.replication.factor or raise spec.replicas",
        fieldPath = ".replication.factor",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = "!has(self.restoreFrom) || has(self.backup)",
        message = "spec.restoreFrom needs spec.backup.storage: the store the backup is read from",
        fieldPath = ".restoreFrom",
        reason = "FieldValueRequired")
@ValidationRule(
        value = "has(oldSelf.restoreFrom) == has(self.restoreFrom)"
                + " && (!has(self.restoreFrom) || oldSelf.restoreFrom == self.restoreFrom)",
        message = "spec.restoreFrom can only be given when the cluster is created (a restore fills a new cluster):"
                + " create a new DhtCluster to restore into",
        fieldPath = ".restoreFrom",
        reason = "FieldValueForbidden")
@ValidationRule(
        value = "!has(self.racks) || self.racks.all(r, self.racks.exists_one(x, x.name == r.name))",
        message = "spec.racks: every rack needs its own name: rename the duplicate",
        fieldPath = ".racks",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = "!has(self.racks) || size(self.racks) == 0" + " || self.racks.exists(r, !has(r.drain) || !r.drain)",
        message = "spec.racks: at least one rack must hold the members: set drain to false on one of them",
        fieldPath = ".racks",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = "!has(self.racks) || self.replicas >= self.racks.filter(r, !has(r.drain) || !r.drain).size()",
        message = "spec.replicas must be at least the number of racks not being drained (each rack holds at least one"
                + " member): raise spec.replicas, or drain a rack",
        fieldPath = ".replicas",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = "(has(oldSelf.racks) && size(oldSelf.racks) > 0) == (has(self.racks) && size(self.racks) > 0)",
        message =
                "spec.racks can only be set when the cluster is created, and never emptied (a member's rack is part of"
                        + " its identity): to move a cluster onto racks, create a new DhtCluster with racks and restore a backup"
                        + " into it (spec.restoreFrom)",
        fieldPath = ".racks",
        reason = "FieldValueForbidden")
// The new list must be the racks kept from the old one, in their old order, then the new racks: nothing reordered
// or renamed, new racks only at the end. Standard macros only (no index comprehensions): any Kubernetes >= 1.30.
@ValidationRule(
        value = "!has(self.racks) || !has(oldSelf.racks) || self.racks.map(r, r.name)"
                + " == oldSelf.racks.map(o, o.name).filter(n, self.racks.exists(r, r.name == n))"
                + " + self.racks.map(r, r.name).filter(n, !oldSelf.racks.exists(o, o.name == n))",
        message = "spec.racks can only be appended to: keep the existing racks, with their names, in their order (a"
                + " rack's name is part of its members' identity) and add new racks at the end",
        fieldPath = ".racks",
        reason = "FieldValueForbidden")
@ValidationRule(
        value = "!has(oldSelf.racks) || oldSelf.racks.all(o, has(o.drain) && o.drain"
                + " || has(self.racks) && self.racks.exists(r, r.name == o.name))",
        message = "spec.racks: a rack is removed only once drained: set drain: true on it, wait until status.racks"
                + " shows it holds no member, then remove it",
        fieldPath = ".racks",
        reason = "FieldValueForbidden")
@ValidationRule(
        value = "!has(self.racks) || !has(oldSelf.racks) || self.racks.all(r,"
                + " oldSelf.racks.all(o, o.name != r.name"
                + " || (has(o.zone) ? o.zone : '') == (has(r.zone) ? r.zone : '')"
                + " && (has(o.nodeAffinityLabels) ? o.nodeAffinityLabels : {}) == (has(r.nodeAffinityLabels)"
                + " ? r.nodeAffinityLabels : {})))",
        message = "spec.racks: a rack's zone and nodeAffinityLabels cannot change (its members' volumes are where it"
                + " runs): drain the rack, remove it, and append a new rack pinned elsewhere",
        fieldPath = ".racks",
        reason = "FieldValueForbidden")
@ValidationRule(
        value = "!has(self.image) || !has(self.version)",
        message = "spec.image and spec.version name the node image twice: set spec.version (a dht release, e.g. 0.2.0:"
                + " the operator's node image at that tag) or spec.image (any image), and remove the other",
        fieldPath = ".version",
        reason = "FieldValueForbidden")
public class DhtClusterSpec {
    @SpecReplicas
    @Min(1)
    @Max(1024)
    @Default("3")
    @JsonPropertyDescription("Number of storage nodes (members). At least 1 and at least replication.factor; at most"
            + " 1024, the members a node's ring holds (1024 points each; docs/benchmarks/scale-sim.md)."
            + " Scaling moves the data: new members join once their pods are ready; a scale-down removes one member"
            + " at a time from the highest ordinal, each only after it has handed over its data.")
    public Integer replicas;

    @Default("{}")
    @JsonPropertyDescription("How many members store each key.")
    public ReplicationSpec replication;

    @JsonPropertyDescription("Storage node image (any registry and tag); or set version instead. Changing it rolls the"
            + " members one at a time (docs/upgrading.md). Unset with version unset: the image the members run now, and"
            + " for a new cluster the operator's node image (dht-node:<operator version>): upgrading the operator never"
            + " changes a cluster's image.")
    public String image;

    @Pattern("^[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?$")
    @JsonPropertyDescription("The dht release the members run (e.g. 0.2.0): the operator's node image repository at"
            + " that tag. Changing it rolls the members one at a time, rack by rack, each after the one before serves"
            + " again with its hints delivered (docs/upgrading.md; see upgrade.canary). Set this or image, not both.")
    public String version;

    @Default(Defaults.IMAGE_PULL_POLICY)
    @JsonPropertyDescription("Pull policy of the node image: Always, IfNotPresent or Never.")
    public ImagePullPolicy imagePullPolicy;

    @JsonPropertyDescription("Secrets for pulling the node image from a private registry.")
    public List<LocalObjectReference> imagePullSecrets;

    @Default(Defaults.RESOURCES)
    @JsonPropertyDescription("CPU and memory of each node container. The JVM heap defaults to a share of the"
            + " memory limit (see jvm.heap); RocksDB's block cache and memtables live outside the heap.")
    public ComputeResources resources;

    @Default("{}")
    @JsonPropertyDescription("Persistent volume of each member (its RocksDB directory).")
    public StorageSpec storage;

    @Default("{}")
    @JsonPropertyDescription("JVM settings of the node process.")
    public JvmSpec jvm;

    @Default("{}")
    @JsonPropertyDescription("RocksDB settings the node exposes. Unset values use the node's defaults.")
    public RocksDbSpec rocksdb;

    @Default("{}")
    @JsonPropertyDescription("Request handling settings of the node. Unset values use the node's defaults.")
    public ServerSpec server;

    @Default("{}")
    @JsonPropertyDescription("Anti-entropy repair between the members (on by default).")
    public RepairSpec repair;

    @Default("{}")
    @JsonPropertyDescription("Continuous profiling support (async-profiler flame graphs written into the data volume).")
    public ProfilerSpec profiler;

    @Default("{}")
    @JsonPropertyDescription("The client Service in front of all members.")
    public ServiceSpec service;

    @Default("{}")
    @JsonPropertyDescription("Mutual TLS between the members (on by default, certificates issued by the operator).")
    public TlsSpec tls;

    @Default("{}")
    @JsonPropertyDescription("Bearer tokens on the client API (on by default, tokens in the Secret <name>-auth).")
    public AuthSpec auth;

    @Default("{}")
    @JsonPropertyDescription("Who may reach the members' ports (a NetworkPolicy, on by default).")
    public NetworkSpec network;

    @JsonPropertyDescription("Node labels a member's pod must match.")
    public Map<String, String> nodeSelector;

    @JsonPropertyDescription("Tolerations of the members' pods.")
    public List<Toleration> tolerations;

    @JsonPropertyDescription("Affinity of the members' pods, merged part by part (node affinity, pod affinity, pod"
            + " anti-affinity) over the default placement: a part set here replaces that part of the default (see"
            + " allowMultiplePerNode). A rack's own affinity is merged over this one.")
    public Affinity affinity;

    @JsonPropertyDescription("Allow several members of this cluster on one Kubernetes node (true): for single-node"
            + " clusters such as a laptop's; members then only prefer distinct nodes. false: required pod anti-affinity on"
            + " kubernetes.io/hostname (one member per node, so a node's loss takes one replica) and, without racks, members"
            + " spread over zones. Unset: false for a new cluster; a cluster created before this field existed keeps"
            + " the placement its pods run with (as true) until it is set, since changing it restarts every member.")
    public Boolean allowMultiplePerNode;

    @Size(max = 16)
    @JsonPropertyDescription("Racks (failure domains, e.g. one per zone): one StatefulSet each, pinned to its zone;"
            + " a key's replicas go to distinct racks first. spec.replicas is split evenly over them (the first racks take"
            + " the remainder). Only at creation; afterwards racks can only be appended (racks with the fewest members"
            + " grow first), drained and then removed. Unset: one implicit rack, every member its own failure domain.")
    public List<RackSpec> racks;

    @JsonPropertyDescription("Where DhtBackups of this cluster are stored and a restore reads from; the members get"
            + " the store's settings and Secrets. Without it the cluster cannot be backed up.")
    public BackupSpec backup;

    @JsonPropertyDescription("Make this cluster from a backup (only at creation): the members restore it, of any"
            + " size and replication factor, and serve clients only when it is done (phase Restoring until then).")
    public RestoreFromSpec restoreFrom;

    @Min(1)
    @ValidationRule(
            value = "self >= oldSelf",
            message =
                    "spec.featureLevel cannot be lowered: a raised"
                            + " feature level is never lowered (the members already use what it switched on); keep it, or set it higher",
            reason = "FieldValueForbidden")
    @JsonPropertyDescription("The cluster feature level (docs/upgrading.md): what members may use that the release"
            + " before theirs does not understand. When set, the operator raises every member to it once every member"
            + " runs a release that supports it and the cluster is Ready (condition FeatureLevel says what it waits for)."
            + " Unset: the operator raises it by itself to the highest level every member's release supports once a roll"
            + " is done (unless spec.upgrade.holdFeatureLevel). It cannot be lowered, and once raised the previous release"
            + " can no longer be rolled back to.")
    public Integer featureLevel;

    @JsonPropertyDescription("How the operator upgrades the cluster.")
    public UpgradeSpec upgrade;
}
