package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.status.Conditions;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events on a cluster's phase changes and refusals (`kubectl describe dht` and `kubectl get
 * events` show them). Only transitions produce one, so a steady cluster adds none. Best effort: a failed
 * event is logged, never a reason to fail the reconcile.
 */
final class ClusterEvents {
    static final String COMPONENT = "dht-operator";
    private static final Logger log = LoggerFactory.getLogger(ClusterEvents.class);

    private final KubernetesClient client;
    private final WriteMetrics metrics;

    ClusterEvents(KubernetesClient client, WriteMetrics metrics) {
        this.client = client;
        this.metrics = metrics;
    }

    void onTransition(DhtCluster cluster, DhtClusterStatus next, Instant now) {
        Phase before = cluster.getStatus() != null ? cluster.getStatus().phase : null;
        if (next.phase == null || Objects.equals(before, next.phase)) {
            return;
        }
        var ready = Conditions.find(next.conditions, Conditions.READY);
        String reason = ready.map(c -> c.getReason()).orElse(next.phase.name());
        String message = ready.map(c -> c.getMessage()).orElse("");
        boolean warning = next.phase == Phase.Failed || next.phase == Phase.Degraded;
        record(cluster, warning, reason, (before == null ? "" : before + " -> ") + next.phase + ": " + message, now);
    }

    /** A Warning when a spec change starts being held back (the Refused condition turns True or changes reason). */
    void onRefusal(DhtCluster cluster, DhtClusterStatus next, Instant now) {
        var refused = Conditions.find(next.conditions, Conditions.REFUSED).filter(c -> "True".equals(c.getStatus()));
        if (refused.isEmpty()) {
            return;
        }
        var before = Conditions.find(
                        cluster.getStatus() != null ? cluster.getStatus().conditions : null, Conditions.REFUSED)
                .filter(c -> "True".equals(c.getStatus()));
        if (before.isPresent()
                && Objects.equals(before.get().getReason(), refused.get().getReason())) {
            return;
        }
        record(cluster, true, refused.get().getReason(), refused.get().getMessage(), now);
    }

    /** A Warning when a condition turns False, or changes its reason while False (CertificatesValid, ...). */
    void onConditionFalse(DhtCluster cluster, DhtClusterStatus next, String type, Instant now) {
        var now_ = Conditions.find(next.conditions, type).filter(c -> "False".equals(c.getStatus()));
        if (now_.isEmpty()) {
            return;
        }
        var before = Conditions.find(cluster.getStatus() != null ? cluster.getStatus().conditions : null, type)
                .filter(c -> "False".equals(c.getStatus()));
        if (before.isPresent()
                && Objects.equals(before.get().getReason(), now_.get().getReason())) {
            return;
        }
        record(cluster, true, type + "/" + now_.get().getReason(), now_.get().getMessage(), now);
    }

    /** A Normal Event on each phase of a CA replacement (status.tls.rotation). */
    void onRotation(DhtCluster cluster, DhtClusterStatus next, Instant now) {
        String before = cluster.getStatus() != null && cluster.getStatus().tls != null
                ? cluster.getStatus().tls.rotation
                : null;
        String after = next.tls != null ? next.tls.rotation : null;
        if (after == null || Objects.equals(before, after) || before == null && "Steady".equals(after)) {
            return;
        }
        record(
                cluster,
                false,
                "CertificateRotation",
                (before == null ? "" : before + " -> ") + after + ": " + next.tls.message,
                now);
    }

    private void record(DhtCluster cluster, boolean warning, String reason, String message, Instant now) {
        String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
        var meta = cluster.getMetadata();
        var event = new EventBuilder()
                .withNewMetadata()
                .withGenerateName(meta.getName() + ".")
                .withNamespace(meta.getNamespace())
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion(cluster.getApiVersion())
                .withKind(cluster.getKind())
                .withName(meta.getName())
                .withNamespace(meta.getNamespace())
                .withUid(meta.getUid())
                .endInvolvedObject()
                .withType(warning ? "Warning" : "Normal")
                .withReason(reason)
                .withMessage(message)
                .withNewSource()
                .withComponent(COMPONENT)
                .endSource()
                .withReportingComponent(COMPONENT)
                .withFirstTimestamp(time)
                .withLastTimestamp(time)
                .withCount(1)
                .build();
        try {
            client.v1()
                    .events()
                    .inNamespace(meta.getNamespace())
                    .resource(event)
                    .create();
            metrics.write("Event");
        } catch (KubernetesClientException e) {
            log.warn(
                    "could not record event {} for {}/{}: {}",
                    reason,
                    meta.getNamespace(),
                    meta.getName(),
                    e.getMessage());
        }
    }
}
