package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.ComputeResources;
import dev.dht.operator.api.v1alpha1.Defaults;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.ResourceList;
import dev.dht.operator.api.v1alpha1.ServiceType;
import dev.dht.operator.api.v1alpha1.SpecDuration;
import dev.dht.operator.security.SecurityModel;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A cluster's spec with every default applied and every value checked: the one input of the
 * desired-state builders. {@link #from} is the only place that reads the raw spec.
 *
 * @param replicationFactor the factor the nodes get (--replication-factor); they cap it at the member count, see
 *     {@link #effectiveReplicationFactor()}
 */
public record ClusterModel(
        String name,
        String namespace,
        int replicas,
        int replicationFactor,
        String image,
        String imagePullPolicy,
        List<LocalObjectReference> imagePullSecrets,
        ResourceRequirements resources,
        String storageSize,
        Optional<String> storageClassName,
        boolean retainOnDelete,
        boolean retainOnScaleDown,
        Optional<Long> heapBytes,
        List<String> jvmOptions,
        Optional<Long> blockCacheBytes,
        Optional<Long> writeBufferBytes,
        Optional<String> requestTimeout,
        Optional<Integer> workers,
        Optional<Integer> queueSize,
        Optional<Long> maxBodyBytes,
        Optional<String> tombstoneGrace,
        RepairSchedule repair,
        boolean profilerEnabled,
        ServiceType serviceType,
        int servicePort,
        Map<String, String> nodeSelector,
        List<Toleration> tolerations,
        Optional<Affinity> affinity,
        String clusterDomain,
        String profilerImage,
        SecurityModel security,
        BackupModel backup,
        List<Rack> racks,
        Optional<Boolean> allowMultiplePerNode,
        Placement placement) {

    /** A cluster that has no members yet (or whose members' client port speaks what its spec says). */
    public static ClusterModel from(DhtCluster cluster, Platform platform) {
        return from(cluster, platform, Optional.empty());
    }

    /**
     * @param clientTlsOnLiveMembers whether the members running now serve TLS on their client port, empty when none
     *     runs: the one observed fact the model reads, so that an unset spec.tls.client.enabled never switches a
     *     running cluster's clients to TLS (SecurityModel.clientTls)
     */
    public static ClusterModel from(DhtCluster cluster, Platform platform, Optional<Boolean> clientTlsOnLiveMembers) {
        var meta = cluster.getMetadata();
        var spec = cluster.getSpec() != null ? cluster.getSpec() : new DhtClusterSpec();
        int replicas = orDefault(spec.replicas, Defaults.REPLICAS);
        if (replicas < 1) {
            throw new InvalidSpecException("spec.replicas is " + replicas + ": a cluster needs at least 1 member");
        }
        Integer factorSpec = spec.replication != null ? spec.replication.factor : null;
        // Unset: a constant the nodes cap at the member count, so that scaling never changes the nodes' setting.
        int factor = factorSpec != null ? factorSpec : Defaults.REPLICATION_FACTOR;
        if (factorSpec != null && (factor < 1 || factor > replicas)) {
            throw new InvalidSpecException("spec.replication.factor is " + factor + " but must be between 1 and"
                    + " spec.replicas (" + replicas + "): lower the factor or raise replicas");
        }
        var storage = spec.storage;
        var jvm = spec.jvm;
        var rocks = spec.rocksdb;
        var server = spec.server;
        var service = spec.service;
        return new ClusterModel(
                meta.getName(),
                meta.getNamespace(),
                replicas,
                factor,
                nonBlank(spec.image).orElse(platform.defaultNodeImage()),
                spec.imagePullPolicy != null ? spec.imagePullPolicy.name() : Defaults.IMAGE_PULL_POLICY,
                spec.imagePullSecrets != null ? List.copyOf(spec.imagePullSecrets) : List.of(),
                resources(spec.resources),
                storage != null && storage.size != null
                        ? checkedQuantity("spec.storage.size", storage.size)
                        : Defaults.STORAGE_SIZE,
                storage != null ? nonBlank(storage.storageClassName) : Optional.empty(),
                storage == null || storage.retainOnDelete == null ? Defaults.RETAIN_ON_DELETE : storage.retainOnDelete,
                storage == null || storage.retainOnScaleDown == null
                        ? Defaults.RETAIN_ON_SCALE_DOWN
                        : storage.retainOnScaleDown,
                bytes("spec.jvm.heap", jvm != null ? jvm.heap : null),
                jvm != null && jvm.options != null ? List.copyOf(jvm.options) : List.of(),
                bytes("spec.rocksdb.blockCacheSize", rocks != null ? rocks.blockCacheSize : null),
                bytes("spec.rocksdb.writeBufferSize", rocks != null ? rocks.writeBufferSize : null),
                server != null ? nonBlank(server.requestTimeout) : Optional.empty(),
                server != null ? Optional.ofNullable(server.workers) : Optional.empty(),
                server != null ? Optional.ofNullable(server.queueSize) : Optional.empty(),
                bytes("spec.server.maxBody", server != null ? server.maxBody : null),
                server != null ? nonBlank(server.tombstoneGrace) : Optional.empty(),
                RepairSchedule.from(spec.repair, server != null ? nonBlank(server.tombstoneGrace) : Optional.empty()),
                spec.profiler != null && Boolean.TRUE.equals(spec.profiler.enabled),
                service != null && service.type != null ? service.type : ServiceType.valueOf(Defaults.SERVICE_TYPE),
                service != null && service.port != null ? service.port : Defaults.SERVICE_PORT,
                spec.nodeSelector != null ? Map.copyOf(spec.nodeSelector) : Map.of(),
                spec.tolerations != null ? List.copyOf(spec.tolerations) : List.of(),
                Optional.ofNullable(spec.affinity),
                platform.clusterDomain(),
                platform.runnerImage(),
                security(cluster, platform, clientTlsOnLiveMembers),
                BackupModel.from(spec.backup, spec.restoreFrom),
                racks(spec, replicas),
                Optional.ofNullable(spec.allowMultiplePerNode),
                Placement.of(Optional.ofNullable(spec.allowMultiplePerNode)));
    }

    /** The spec's racks (the schema checks them; this is the second line), or the implicit one. */
    private static List<Rack> racks(DhtClusterSpec spec, int replicas) {
        var racks = Rack.of(spec.racks);
        var names = new java.util.HashSet<String>();
        for (Rack rack : racks) {
            if (!rack.implicit() && (rack.name() == null || !rack.name().matches("[a-z]([-a-z0-9]*[a-z0-9])?"))) {
                throw new InvalidSpecException("spec.racks: '" + rack.name() + "' is not a DNS label such as zone-a");
            }
            if (!names.add(rack.name())) {
                throw new InvalidSpecException("spec.racks: two racks are named " + rack.name() + ": rename one");
            }
        }
        long holding = racks.stream().filter(r -> !r.drain()).count();
        if (holding == 0) {
            throw new InvalidSpecException("spec.racks: every rack is drained: set drain to false on one of them");
        }
        if (replicas < holding) {
            throw new InvalidSpecException("spec.replicas is " + replicas + " but " + holding
                    + " racks are to hold members" + " (each at least one): raise spec.replicas, or drain a rack");
        }
        return racks;
    }

    private static SecurityModel security(DhtCluster cluster, Platform platform, Optional<Boolean> clientTlsOnLive) {
        try {
            return SecurityModel.from(
                    cluster,
                    Names.headlessService(cluster.getMetadata().getName()),
                    platform.clusterDomain(),
                    clientTlsOnLive);
        } catch (IllegalArgumentException e) {
            throw new InvalidSpecException(e.getMessage());
        }
    }

    /** The racks' names, in order ("" for the implicit rack). */
    public List<String> rackNames() {
        return racks.stream().map(Rack::name).toList();
    }

    /** Whether the spec names racks (else one implicit rack: no rack anywhere, today's names). */
    public boolean hasRacks() {
        return !racks.getFirst().implicit();
    }

    public java.util.Set<String> drainedRacks() {
        return racks.stream().filter(Rack::drain).map(Rack::name).collect(java.util.stream.Collectors.toSet());
    }

    /** Members per rack of a new cluster: spec.replicas split evenly, the first racks taking the remainder. */
    public Layout initialLayout() {
        return Layout.empty(rackNames()).target(replicas, drainedRacks());
    }

    /** The topology's lines for these members: {@code URL}, or {@code RACK=URL} with racks. */
    public List<String> topologyLines(Layout members) {
        return members.members().stream().map(m -> m.topologyLine(this)).toList();
    }

    /** Copies of each key in a cluster of {@code replicas} members: the nodes cap the factor at the member count. */
    public int effectiveReplicationFactor() {
        return Math.min(replicationFactor, replicas);
    }

    /** The same cluster with the nodes' factor held at {@code factor} (a change waits while the cluster scales). */
    public ClusterModel withReplicationFactor(int factor) {
        return with(factor, placement);
    }

    /** The same cluster built with {@code placement} (see {@link Placement#decide}). */
    public ClusterModel withPlacement(Placement placement) {
        return with(replicationFactor, placement);
    }

    /** The same cluster with these two fields replaced: the one copy of the constructor's argument list. */
    private ClusterModel with(int replicationFactor, Placement placement) {
        return new ClusterModel(
                name,
                namespace,
                replicas,
                replicationFactor,
                image,
                imagePullPolicy,
                imagePullSecrets,
                resources,
                storageSize,
                storageClassName,
                retainOnDelete,
                retainOnScaleDown,
                heapBytes,
                jvmOptions,
                blockCacheBytes,
                writeBufferBytes,
                requestTimeout,
                workers,
                queueSize,
                maxBodyBytes,
                tombstoneGrace,
                repair,
                profilerEnabled,
                serviceType,
                servicePort,
                nodeSelector,
                tolerations,
                affinity,
                clusterDomain,
                profilerImage,
                security,
                backup,
                racks,
                allowMultiplePerNode,
                placement);
    }

    /** The container's requests and limits; the schema default when the spec has none. */
    static ResourceRequirements resources(ComputeResources spec) {
        var resources = spec != null
                ? spec
                : new ComputeResources(new ResourceList("500m", "1Gi"), new ResourceList(null, "1Gi"));
        return new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                .withRequests(quantities("spec.resources.requests", resources.requests))
                .withLimits(quantities("spec.resources.limits", resources.limits))
                .build();
    }

    private static Map<String, Quantity> quantities(String field, ResourceList list) {
        if (list == null) {
            return null;
        }
        var out = new java.util.LinkedHashMap<String, Quantity>();
        putQuantity(out, field, "cpu", list.cpu);
        putQuantity(out, field, "memory", list.memory);
        putQuantity(out, field, "ephemeral-storage", list.ephemeralStorage);
        return out.isEmpty() ? null : out;
    }

    private static void putQuantity(Map<String, Quantity> out, String field, String name, String value) {
        if (value != null && !value.isBlank()) {
            checkedQuantity(field + "." + name, value);
            out.put(name, new Quantity(value.trim()));
        }
    }

    private static int orDefault(Integer value, int otherwise) {
        return value != null ? value : otherwise;
    }

    private static Optional<String> nonBlank(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    private static String checkedQuantity(String field, String value) {
        bytes(field, value);
        return value;
    }

    /** A positive Kubernetes quantity in bytes; the node gets plain bytes, never a unit it might read differently. */
    static Optional<Long> bytes(String field, String value) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        BigDecimal amount;
        try {
            amount = Quantity.getAmountInBytes(new Quantity(value.trim()));
        } catch (RuntimeException e) {
            throw new InvalidSpecException(field + " is '" + value + "', not a Kubernetes quantity such as 256Mi");
        }
        if (amount.signum() <= 0) {
            throw new InvalidSpecException(field + " is '" + value + "' but must be positive");
        }
        return Optional.of(amount.setScale(0, java.math.RoundingMode.CEILING).longValueExact());
    }

    /** A duration of the spec: a number and a unit, ms, s, m, h or d (the schemas' patterns allow a subset each). */
    public static Duration duration(String field, String text) {
        try {
            return SpecDuration.parse(field, text);
        } catch (IllegalArgumentException e) {
            throw new InvalidSpecException(e.getMessage());
        }
    }
}
