package dev.dht.operator.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the parts of the StatefulSet controller and the kubelet that kube-api-test does not run,
 * for one namespace: creates a PVC and a pod per ordinal from the template (PVCs owned by the
 * StatefulSet when its retention policy says whenDeleted: Delete, as the real controller does),
 * removes pods above the replica count (and their PVCs when the policy says whenScaled: Delete),
 * rolls pods whose template revision is old one at a time (highest ordinal first, only when all
 * are ready; pods below the rolling update's partition keep the current revision, as new ones made there do),
 * marks pods Ready (unless held back), and writes
 * the StatefulSet's status. Every change happens through the real API server.
 */
public final class FakeStatefulSetController implements AutoCloseable {
    public static final String REVISION_LABEL = "controller-revision-hash";
    private static final Logger log = LoggerFactory.getLogger(FakeStatefulSetController.class);

    private final KubernetesClient client;
    private final String namespace;
    private final ExecutorService worker;
    private final AtomicBoolean queued = new AtomicBoolean();
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private final AtomicInteger podsDeletedForUpdate = new AtomicInteger();
    /** Templates by revision, as the real controller keeps ControllerRevisions (a pod below the partition gets its). */
    private final Map<String, io.fabric8.kubernetes.api.model.PodTemplateSpec> revisions = new HashMap<>();
    /** Pods replaced by rolling updates, in order (pod names). */
    private final List<String> replaced = java.util.Collections.synchronizedList(new ArrayList<>());

    private volatile boolean kubeletReportsReady = true;

    public FakeStatefulSetController(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
        this.worker = Executors.newSingleThreadExecutor(r -> new Thread(r, "fake-sts-" + namespace));
    }

    public FakeStatefulSetController start() {
        ResourceEventHandler<HasMetadata> onAnyChange = new ResourceEventHandler<>() {
            @Override
            public void onAdd(HasMetadata obj) {
                schedule();
            }

            @Override
            public void onUpdate(HasMetadata oldObj, HasMetadata newObj) {
                schedule();
            }

            @Override
            public void onDelete(HasMetadata obj, boolean deletedFinalStateUnknown) {
                schedule();
            }
        };
        informers.add(client.apps().statefulSets().inNamespace(namespace).inform(cast(onAnyChange)));
        informers.add(client.pods().inNamespace(namespace).inform(cast(onAnyChange)));
        informers.add(client.persistentVolumeClaims().inNamespace(namespace).inform(cast(onAnyChange)));
        return this;
    }

    /** false: new pods stay not ready (as if the node were still starting) until this is set back to true. */
    public void kubeletReportsReady(boolean ready) {
        kubeletReportsReady = ready;
        schedule();
    }

    /** Pods deleted to replace them with the new template revision. */
    public int podsReplacedByRollingUpdate() {
        return podsDeletedForUpdate.get();
    }

    /** The pods rolling updates replaced, in the order they were deleted. */
    public List<String> replacedPods() {
        synchronized (replaced) {
            return List.copyOf(replaced);
        }
    }

    private void schedule() {
        if (queued.compareAndSet(false, true)) {
            worker.submit(() -> {
                queued.set(false);
                try {
                    client.apps()
                            .statefulSets()
                            .inNamespace(namespace)
                            .list()
                            .getItems()
                            .forEach(this::sync);
                } catch (KubernetesClientException e) {
                    // A conflict or a vanished object: the next event brings another pass.
                    log.debug("fake StatefulSet controller pass failed, retrying: {}", e.getMessage());
                    schedule();
                } catch (RuntimeException e) {
                    log.error("fake StatefulSet controller failed", e);
                }
            });
        }
    }

    private void sync(StatefulSet sts) {
        if (sts.getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        String name = sts.getMetadata().getName();
        int replicas = sts.getSpec().getReplicas();
        String updateRevision = name + "-" + revisionOf(sts);
        revisions.put(updateRevision, sts.getSpec().getTemplate());
        var rolling = sts.getSpec().getUpdateStrategy() == null
                ? null
                : sts.getSpec().getUpdateStrategy().getRollingUpdate();
        int partition = rolling == null || rolling.getPartition() == null ? 0 : rolling.getPartition();
        String currentRevision = sts.getStatus() != null
                        && sts.getStatus().getCurrentRevision() != null
                        && revisions.containsKey(sts.getStatus().getCurrentRevision())
                ? sts.getStatus().getCurrentRevision()
                : updateRevision;
        Map<Integer, Pod> pods = podsOf(sts);

        // Scale down: pods above the replica count go (all at once: podManagementPolicy Parallel), and with
        // persistentVolumeClaimRetentionPolicy.whenScaled: Delete their claims too (the real controller makes the pod
        // the claim's owner and lets the garbage collector delete it after the pod).
        var policy = sts.getSpec().getPersistentVolumeClaimRetentionPolicy();
        boolean deleteClaimsWhenScaled = policy != null && "Delete".equals(policy.getWhenScaled());
        pods.entrySet().removeIf(e -> {
            if (e.getKey() >= replicas) {
                client.resource(e.getValue()).delete();
                if (deleteClaimsWhenScaled) {
                    deleteClaims(sts, e.getKey());
                }
                return true;
            }
            return false;
        });
        // Scale up / replace: every missing ordinal gets its PVCs and a pod of the update revision. A pod whose claim
        // is gone (deleted under it: a member replaced) gets it again, as the real controller does for a pending pod.
        for (int i = 0; i < replicas; i++) {
            if (!pods.containsKey(i)) {
                createClaims(sts, i);
                String revision = i >= partition ? updateRevision : currentRevision;
                pods.put(
                        i,
                        client.resource(newPod(sts, i, revision, revisions.get(revision)))
                                .create());
            } else {
                createClaims(sts, i);
            }
        }
        // Kubelet: report containers ready.
        if (kubeletReportsReady) {
            for (var entry : pods.entrySet()) {
                if (!isReady(entry.getValue()) && entry.getValue().getMetadata().getDeletionTimestamp() == null) {
                    entry.setValue(markReady(entry.getValue()));
                }
            }
        }
        // Rolling update: one outdated pod at a time, highest ordinal first, only when all are ready; none below the
        // partition.
        boolean allReady =
                pods.size() == replicas && pods.values().stream().allMatch(FakeStatefulSetController::isReady);
        if (allReady) {
            pods.entrySet().stream()
                    .filter(e -> e.getKey() >= partition)
                    .filter(e -> !updateRevision.equals(
                            e.getValue().getMetadata().getLabels().get(REVISION_LABEL)))
                    .max(Map.Entry.comparingByKey())
                    .ifPresent(e -> {
                        client.resource(e.getValue()).delete();
                        podsDeletedForUpdate.incrementAndGet();
                        replaced.add(e.getValue().getMetadata().getName());
                        pods.remove(e.getKey());
                    });
        }
        writeStatus(sts, pods, updateRevision);
    }

    private void writeStatus(StatefulSet sts, Map<Integer, Pod> pods, String updateRevision) {
        int ready = (int) pods.values().stream()
                .filter(FakeStatefulSetController::isReady)
                .count();
        int updated = (int) pods.values().stream()
                .filter(p -> updateRevision.equals(p.getMetadata().getLabels().get(REVISION_LABEL)))
                .count();
        var previous = sts.getStatus();
        String current = updated == pods.size() && pods.size() == sts.getSpec().getReplicas()
                ? updateRevision
                : previous != null && previous.getCurrentRevision() != null
                        ? previous.getCurrentRevision()
                        : updateRevision;
        int currentCount = (int) pods.values().stream()
                .filter(p -> current.equals(p.getMetadata().getLabels().get(REVISION_LABEL)))
                .count();
        var status = new io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder()
                .withObservedGeneration(sts.getMetadata().getGeneration())
                .withReplicas(pods.size())
                .withReadyReplicas(ready)
                .withAvailableReplicas(ready)
                .withUpdatedReplicas(updated)
                .withCurrentReplicas(currentCount)
                .withCurrentRevision(current)
                .withUpdateRevision(updateRevision)
                .build();
        if (!status.equals(previous)) {
            client.apps()
                    .statefulSets()
                    .inNamespace(namespace)
                    .withName(sts.getMetadata().getName())
                    .editStatus(s -> {
                        s.setStatus(status);
                        return s;
                    });
        }
    }

    private Map<Integer, Pod> podsOf(StatefulSet sts) {
        var pods = new HashMap<Integer, Pod>();
        String prefix = sts.getMetadata().getName() + "-";
        client
                .pods()
                .inNamespace(namespace)
                .withLabels(sts.getSpec().getSelector().getMatchLabels())
                .list()
                .getItems()
                .stream()
                .filter(p -> p.getMetadata().getName().startsWith(prefix))
                .forEach(p -> {
                    try {
                        pods.put(Integer.parseInt(p.getMetadata().getName().substring(prefix.length())), p);
                    } catch (NumberFormatException ignored) {
                        // not one of this StatefulSet's pods
                    }
                });
        return pods;
    }

    private Pod newPod(
            StatefulSet sts, int ordinal, String revision, io.fabric8.kubernetes.api.model.PodTemplateSpec template) {
        String podName = sts.getMetadata().getName() + "-" + ordinal;
        var labels = new LinkedHashMap<>(template.getMetadata().getLabels());
        labels.put(REVISION_LABEL, revision);
        labels.put("statefulset.kubernetes.io/pod-name", podName);
        labels.put("apps.kubernetes.io/pod-index", Integer.toString(ordinal));
        var spec = template.getSpec().toBuilder()
                .withHostname(podName)
                .withSubdomain(sts.getSpec().getServiceName())
                .build();
        var volumes = new ArrayList<>(spec.getVolumes());
        for (var claim : sts.getSpec().getVolumeClaimTemplates()) {
            String claimTemplate = claim.getMetadata().getName();
            volumes.add(new VolumeBuilder()
                    .withName(claimTemplate)
                    .withNewPersistentVolumeClaim()
                    .withClaimName(claimTemplate + "-" + podName)
                    .endPersistentVolumeClaim()
                    .build());
        }
        spec.setVolumes(volumes);
        return new PodBuilder()
                .withNewMetadata()
                .withName(podName)
                .withNamespace(namespace)
                .withLabels(labels)
                .withAnnotations(template.getMetadata().getAnnotations())
                .withOwnerReferences(ownerReference(sts))
                .endMetadata()
                .withSpec(spec)
                .build();
    }

    private void createClaims(StatefulSet sts, int ordinal) {
        String podName = sts.getMetadata().getName() + "-" + ordinal;
        var policy = sts.getSpec().getPersistentVolumeClaimRetentionPolicy();
        boolean deleteWithSet = policy != null && "Delete".equals(policy.getWhenDeleted());
        for (var template : sts.getSpec().getVolumeClaimTemplates()) {
            String claimName = template.getMetadata().getName() + "-" + podName;
            if (client.persistentVolumeClaims()
                            .inNamespace(namespace)
                            .withName(claimName)
                            .get()
                    != null) {
                continue; // a retained claim is reused, as the real controller does
            }
            PersistentVolumeClaim claim = new PersistentVolumeClaimBuilder()
                    .withNewMetadata()
                    .withName(claimName)
                    .withNamespace(namespace)
                    .withLabels(template.getMetadata().getLabels())
                    .withOwnerReferences(deleteWithSet ? List.of(ownerReference(sts)) : List.of())
                    .endMetadata()
                    .withSpec(template.getSpec())
                    .build();
            client.resource(claim).create();
        }
    }

    private void deleteClaims(StatefulSet sts, int ordinal) {
        String podName = sts.getMetadata().getName() + "-" + ordinal;
        for (var template : sts.getSpec().getVolumeClaimTemplates()) {
            client.persistentVolumeClaims()
                    .inNamespace(namespace)
                    .withName(template.getMetadata().getName() + "-" + podName)
                    .delete();
        }
    }

    private Pod markReady(Pod pod) {
        return client.pods()
                .inNamespace(namespace)
                .withName(pod.getMetadata().getName())
                .editStatus(p -> {
                    var conditions = new ArrayList<>(
                            p.getStatus() == null || p.getStatus().getConditions() == null
                                    ? List.of()
                                    : p.getStatus().getConditions());
                    conditions.removeIf(c -> "Ready".equals(c.getType()));
                    conditions.add(new PodConditionBuilder()
                            .withType("Ready")
                            .withStatus("True")
                            .build());
                    p.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                            .withPhase("Running")
                            .withConditions(conditions)
                            .build());
                    return p;
                });
    }

    static boolean isReady(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The template's revision, like the real controller's ControllerRevision hash. */
    static String revisionOf(StatefulSet sts) {
        return Integer.toHexString(Objects.hash(io.fabric8.kubernetes.client.utils.Serialization.asJson(
                sts.getSpec().getTemplate())));
    }

    static OwnerReference ownerReference(StatefulSet sts) {
        return new OwnerReferenceBuilder()
                .withApiVersion("apps/v1")
                .withKind("StatefulSet")
                .withName(sts.getMetadata().getName())
                .withUid(sts.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    @SuppressWarnings("unchecked")
    private static <T extends HasMetadata> ResourceEventHandler<T> cast(ResourceEventHandler<HasMetadata> handler) {
        return (ResourceEventHandler<T>) (ResourceEventHandler<?>) handler;
    }

    @Override
    public void close() {
        informers.forEach(SharedIndexInformer::close);
        worker.shutdownNow();
    }
}
