package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
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
@ValidationRule(value = "!has(self.restoreFrom) || has(self.backup)",
    message = "spec.restoreFrom needs spec.backup.storage: the store the backup is read from",
    fieldPath = ".restoreFrom", reason = "FieldValueRequired")
@ValidationRule(value = "has(oldSelf.restoreFrom) == has(self.restoreFrom)"
    + " && (!has(self.restoreFrom) || oldSelf.restoreFrom == self.restoreFrom)",
    message = "spec.restoreFrom can only be given when the cluster is created (a restore fills a new cluster):"
        + " create a new DhtCluster to restore into",
    fieldPath = ".restoreFrom", reason = "FieldValueForbidden")
public class DhtClusterSpec {
  @SpecReplicas
  @Min(1)
  @Default("3")
  @JsonPropertyDescription("Number of storage nodes (members). At least 1 and at least replication.factor."
      + " Scaling moves the data: new members join once their pods are ready; a scale-down removes one member"
      + " at a time from the highest ordinal, each only after it has handed over its data.")
  public Integer replicas;

  @Default("{}")
  @JsonPropertyDescription("How many members store each key.")
  public ReplicationSpec replication;

  @JsonPropertyDescription("Storage node image. Default: the operator's node image (dht-node:<operator version>).")
  public String image;

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

  @JsonPropertyDescription("Affinity of the members' pods. Default: prefer spreading members across hosts"
      + " (preferred pod anti-affinity on kubernetes.io/hostname). Setting it replaces the default.")
  public Affinity affinity;

  @JsonPropertyDescription("Where DhtBackups of this cluster are stored and a restore reads from; the members get"
      + " the store's settings and Secrets. Without it the cluster cannot be backed up.")
  public BackupSpec backup;

  @JsonPropertyDescription("Make this cluster from a backup (only at creation): the members restore it, of any"
      + " size and replication factor, and serve clients only when it is done (phase Restoring until then).")
  public RestoreFromSpec restoreFrom;
}
