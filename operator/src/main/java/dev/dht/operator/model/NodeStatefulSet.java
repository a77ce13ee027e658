package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.NodeOptions;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateStatefulSetStrategyBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The members' StatefulSets, one per rack: stable pod names and volumes, the node container with its probes and a
 * locked-down security context. Pod management is Parallel (members start together and find each
 * other through the topology); template changes roll one pod at a time (RollingUpdate, highest
 * ordinal first), and with racks one rack after the other.
 */
public final class NodeStatefulSet {
    public static final String CONTAINER = "node";
    public static final String DATA_VOLUME = "data";
    public static final String DATA_DIR = "/var/lib/dht";
    public static final String TOPOLOGY_VOLUME = "topology";
    public static final String TOPOLOGY_DIR = "/etc/dht/topology";
    public static final String TOPOLOGY_FILE = TOPOLOGY_DIR + "/" + Topology.MEMBERS_KEY;
    public static final String TMP_VOLUME = "tmp";
    public static final String NODE_JAR = "/opt/dht/dht-node.jar";
    public static final String STATUS_PATH = "/v0/status";
    /** The node's own rack (the contract: it must be the rack the member list gives it). */
    public static final String RACK_ENV = NodeOptions.Env.RACK;
    /** A fixed non-root user: runAsNonRoot needs a numeric user to verify, fsGroup makes the volume writable. */
    public static final long USER_ID = 10001L;
    /** Seconds a terminating pod keeps serving so that endpoints stop routing to it first. */
    public static final long PRE_STOP_SECONDS = 5L;
    /**
     * Seconds the node then drains on SIGTERM (--drain-time): not ready, serving every request, each client
     * connection closed after its next answer, so that kept-alive clients reconnect to another member before it
     * stops listening (docs/operations.md, "Planned disruptions").
     */
    public static final long DRAIN_SECONDS = 5L;
    /** The node's own --shutdown-grace default: in-flight requests may take this long after the drain. */
    static final long NODE_SHUTDOWN_GRACE_SECONDS = 10L;
    /** Covers the preStop pause, the drain and the node's shutdown grace, with room to close RocksDB. */
    public static final long TERMINATION_GRACE_SECONDS = 60L;
    /**
     * Seconds a replaced member must stay ready before a rolling update takes down the next one. Its peers reach
     * it by a DNS name that now points to a new pod IP, and they see the new address only when their caches
     * expire (the cluster DNS's TTL, 5 s with CoreDNS, plus the node's own 1 s): without this pause the next
     * member went down while some peers still dialed the old address, and quorum requests failed with 504
     * (make e2e, step 5).
     */
    public static final int MIN_READY_SECONDS = 10;

    private NodeStatefulSet() {}

    /** The StatefulSet of a cluster without racks, steady. */
    public static StatefulSet statefulSet(DhtCluster cluster, ClusterModel model, String configHash) {
        return statefulSet(cluster, model, model.racks().getFirst(), model.replicas(), 0, configHash);
    }

    /**
     * One rack's StatefulSet. Without racks (the implicit rack) it is named like the cluster and built exactly as before
     * racks existed, but for the partition while a roll runs. Pods from the partition's ordinal up take a new pod
     * template, those below keep the old one: the roll (rollout/MemberRoll) moves it down one member at a time.
     *
     * @param replicas pods to run: the rack's target, or a step towards it while a scale is in progress
     * @param partition the rolling update's partition (0: every pod takes the template)
     */
    public static StatefulSet statefulSet(
            DhtCluster cluster, ClusterModel model, Rack rack, int replicas, int partition, String configHash) {
        String name = model.name();
        var metadata = Owners.metadata(cluster, Names.statefulSet(name, rack.name()));
        var selector = Labels.selector(name, rack);
        var podLabels = podLabels(model);
        podLabels.putAll(selector);
        metadata.getLabels().putAll(selector);
        var podAnnotations = new LinkedHashMap<String, String>();
        podAnnotations.put(Labels.CONFIG_HASH, configHash);
        var identity = model.backup().serviceAccountAnnotations();
        if (!identity.isEmpty()) {
            podAnnotations.put(Labels.IDENTITY_HASH, NodeConfig.hash(identity));
        }
        var template = new PodTemplateSpecBuilder()
                .withNewMetadata()
                .withLabels(podLabels)
                .withAnnotations(podAnnotations)
                .endMetadata()
                .withSpec(podSpec(model, rack))
                .build();
        var annotations = new LinkedHashMap<String, String>();
        if (model.placement() != Placement.KEPT) {
            annotations.put(Labels.PLACEMENT, Placement.MARK);
        }
        if (!rack.implicit()) {
            annotations.put(Labels.TEMPLATE_HASH, Hashing.ofJson(template));
        }
        metadata.setAnnotations(annotations.isEmpty() ? null : annotations);
        var sts = new StatefulSetBuilder()
                .withMetadata(metadata)
                .withNewSpec()
                .withReplicas(replicas)
                .withServiceName(Names.headlessService(name))
                .withPodManagementPolicy("Parallel")
                .withMinReadySeconds(MIN_READY_SECONDS)
                .withNewUpdateStrategy()
                .withType("RollingUpdate")
                .endUpdateStrategy()
                .withNewPersistentVolumeClaimRetentionPolicy()
                .withWhenDeleted(model.retainOnDelete() ? "Retain" : "Delete")
                // The operator shrinks the StatefulSet only after the removed member handed over its data, so its
                // volume can go with it (the StatefulSet controller deletes it after the pod), unless it is kept.
                .withWhenScaled(model.retainOnScaleDown() ? "Retain" : "Delete")
                .endPersistentVolumeClaimRetentionPolicy()
                .withNewSelector()
                .withMatchLabels(selector)
                .endSelector()
                .withTemplate(template)
                .withVolumeClaimTemplates(dataVolumeClaim(model, rack))
                .endSpec()
                .build();
        if (!rack.implicit() || partition > 0) {
            // Pods with an ordinal below the partition keep the old template. The implicit rack's is written only while
            // a
            // roll runs, so that a steady cluster's StatefulSet stays as the operators before racks wrote it.
            sts.getSpec()
                    .getUpdateStrategy()
                    .setRollingUpdate(new RollingUpdateStatefulSetStrategyBuilder()
                            .withPartition(partition)
                            .build());
        }
        return sts;
    }

    /**
     * The members' labels; with client TLS {@value Labels#CLIENT_TLS}=true too, so that a scraper tells the pods whose
     * /metrics is on the plaintext metrics port from those whose client port serves it (the chart's PodMonitor).
     */
    static Map<String, String> podLabels(ClusterModel model) {
        var labels = Labels.common(model.name());
        if (model.security().clientTls().enabled()) {
            labels.put(Labels.CLIENT_TLS, "true");
        }
        return labels;
    }

    static PodSpec podSpec(ClusterModel model, Rack rack) {
        var pod = basePodSpec(model, rack);
        if (model.profilerEnabled()) {
            pod.getContainers().add(ProfilerSidecar.container(model));
        }
        return pod;
    }

    private static PodSpec basePodSpec(ClusterModel model, Rack rack) {
        String name = model.name();
        var tolerations = new java.util.ArrayList<>(model.tolerations());
        tolerations.addAll(rack.tolerations());
        return new PodSpecBuilder()
                .withServiceAccountName(Names.serviceAccount(name))
                // Nodes never call the Kubernetes API.
                .withAutomountServiceAccountToken(false)
                // Service links would inject variables such as DHT_PORT=tcp://... for a Service named "dht",
                // which the node would read as its own --port option.
                .withEnableServiceLinks(false)
                .withTerminationGracePeriodSeconds(TERMINATION_GRACE_SECONDS)
                .withSecurityContext(PodSecurity.pod(USER_ID))
                .withImagePullSecrets(model.imagePullSecrets())
                .withNodeSelector(model.nodeSelector().isEmpty() ? null : new LinkedHashMap<>(model.nodeSelector()))
                .withTolerations(tolerations)
                .withAffinity(PodPlacement.affinity(model, rack))
                .withTopologySpreadConstraints(PodPlacement.spread(model, rack))
                .withContainers(container(model, rack))
                .addNewVolume()
                .withName(TOPOLOGY_VOLUME)
                .withNewConfigMap()
                .withName(Names.topologyConfigMap(name))
                .addNewItem()
                .withKey(Topology.MEMBERS_KEY)
                .withPath(Topology.MEMBERS_KEY)
                .endItem()
                .endConfigMap()
                .endVolume()
                .addAllToVolumes(NodeSecurity.volumes(model.security()))
                .addNewVolume()
                // The root filesystem is read-only; the JVM and async-profiler (it unpacks its native
                // library) need a writable /tmp.
                .withName(TMP_VOLUME)
                .withNewEmptyDir()
                .withSizeLimit(new Quantity("256Mi"))
                .endEmptyDir()
                .endVolume()
                .addAllToVolumes(model.backup().volumes())
                .build();
    }

    static Container container(ClusterModel model, Rack rack) {
        String name = model.name();
        var container = new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(model.image())
                .withImagePullPolicy(model.imagePullPolicy())
                .withCommand("java", "-jar", NODE_JAR)
                .withArgs(args())
                .withEnv(
                        new EnvVarBuilder()
                                .withName("POD_NAME")
                                .withNewValueFrom()
                                .withNewFieldRef()
                                .withFieldPath("metadata.name")
                                .endFieldRef()
                                .endValueFrom()
                                .build(),
                        // Which member this process is: its own stable URL, as written in the topology.
                        new EnvVarBuilder()
                                .withName(NodeOptions.Env.SELF)
                                .withValue(
                                        Names.memberUrl("$(POD_NAME)", name, model.namespace(), model.clusterDomain()))
                                .build())
                .addNewEnvFrom()
                .withNewConfigMapRef()
                .withName(Names.configConfigMap(name))
                .endConfigMapRef()
                .endEnvFrom()
                .addNewPort()
                .withName(Names.PORT_NAME)
                .withContainerPort(Names.NODE_PORT)
                .withProtocol("TCP")
                .endPort()
                .addToPorts(NodeSecurity.memberPort())
                .addAllToPorts(NodeSecurity.metricsPort(model.security()))
                .withResources(model.resources())
                // Startup allows a slow RocksDB open (recovery after a crash); liveness is lenient so that a
                // node busy under load is not killed; readiness takes a member out of the Services quickly.
                .withStartupProbe(statusProbe(NodeSecurity.probePort(model.security()), 5, 2, 60))
                .withLivenessProbe(statusProbe(NodeSecurity.probePort(model.security()), 10, 5, 6))
                .withReadinessProbe(statusProbe(NodeSecurity.probePort(model.security()), 5, 2, 3))
                .withNewLifecycle()
                .withNewPreStop()
                .withNewSleep()
                .withSeconds(PRE_STOP_SECONDS)
                .endSleep()
                .endPreStop()
                .endLifecycle()
                .withSecurityContext(PodSecurity.container())
                .addNewVolumeMount()
                .withName(DATA_VOLUME)
                .withMountPath(DATA_DIR)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(TOPOLOGY_VOLUME)
                .withMountPath(TOPOLOGY_DIR)
                .withReadOnly(true)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(TMP_VOLUME)
                .withMountPath("/tmp")
                .endVolumeMount()
                .addAllToVolumeMounts(NodeSecurity.nodeMounts(model.security()))
                .addAllToVolumeMounts(model.backup().mounts())
                .withTerminationMessagePolicy("FallbackToLogsOnError")
                .build();
        if (!rack.implicit()) {
            // The rack from the pod's own label (downward API): the node needs no right to read Nodes, and the label
            // comes from the rack's StatefulSet, so a member's rack never changes with where its pod lands.
            container
                    .getEnv()
                    .add(new EnvVarBuilder()
                            .withName(RACK_ENV)
                            .withNewValueFrom()
                            .withNewFieldRef()
                            .withFieldPath("metadata.labels['" + Labels.RACK + "']")
                            .endFieldRef()
                            .endValueFrom()
                            .build());
        }
        return container;
    }

    static Probe statusProbe(String port, int periodSeconds, int timeoutSeconds, int failureThreshold) {
        return new ProbeBuilder()
                .withNewHttpGet()
                .withPath(STATUS_PATH)
                .withNewPort(port)
                .withScheme("HTTP")
                .endHttpGet()
                .withPeriodSeconds(periodSeconds)
                .withTimeoutSeconds(timeoutSeconds)
                .withFailureThreshold(failureThreshold)
                .withSuccessThreshold(1)
                .build();
    }

    static PersistentVolumeClaim dataVolumeClaim(ClusterModel model, Rack rack) {
        var claim = new PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName(DATA_VOLUME)
                .withLabels(Labels.selector(model.name(), rack))
                .endMetadata()
                .withNewSpec()
                .withAccessModes("ReadWriteOnce")
                .withNewResources()
                .withRequests(Map.of("storage", new Quantity(model.storageSize())))
                .endResources()
                .endSpec()
                .build();
        model.storageClassName().ifPresent(claim.getSpec()::setStorageClassName);
        return claim;
    }

    /** Fixed options; everything the spec controls comes from the config ConfigMap (envFrom). */
    static List<String> args() {
        return List.of(
                NodeOptions.Flag.PORT,
                Integer.toString(Names.NODE_PORT),
                NodeOptions.Flag.DATA_DIR,
                DATA_DIR,
                NodeOptions.Flag.CLUSTER_FILE,
                TOPOLOGY_FILE);
    }
}
