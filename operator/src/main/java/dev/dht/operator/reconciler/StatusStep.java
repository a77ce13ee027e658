package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.backup.StoreView;
import dev.dht.operator.rollout.MemberRoll;
import dev.dht.operator.status.Conditions;
import dev.dht.operator.status.SecurityConditions;
import io.fabric8.kubernetes.api.model.Condition;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The DhtCluster's status beyond what status/StatusCalculator computes (the security, roll and object-store
 * conditions), and its write with the Events of what changed.
 */
final class StatusStep {
    private final WriteMetrics metrics;

    StatusStep(WriteMetrics metrics) {
        this.metrics = metrics;
    }

    /**
     * Adds to {@code status} the security step's conditions, the roll's, and what the members say of the object store
     * (when the spec names one: a wrong credential shows before any backup runs).
     */
    void addConditions(
            DhtClusterStatus status,
            Optional<DhtClusterStatus> previous,
            SecurityStep.Outcome security,
            MemberRoll.Plan roll,
            Optional<StoreView> store,
            Instant now) {
        SecurityConditions.apply(
                status,
                previous,
                security.tls(),
                security.certificates(),
                security.clientCertificates(),
                security.credentials(),
                now);
        var before = previous.map(s -> s.conditions).orElse(List.<Condition>of());
        status.conditions.add(Conditions.condition(
                before,
                MemberRoll.CONDITION,
                !roll.rolling(),
                roll.reason(),
                roll.message(),
                status.observedGeneration,
                now));
        store.ifPresent(view -> status.conditions.add(Conditions.condition(
                before,
                StoreView.CONDITION,
                view.status(),
                view.reason(),
                view.message().length() > 1024 ? view.message().substring(0, 1024) + "..." : view.message(),
                status.observedGeneration,
                now)));
    }

    /**
     * Writes a changed status (server-side apply of only what the operator owns) and returns once the informer cache
     * holds it, then records the phase change as an Event. JOSDK does not cache a status it patched itself: a
     * reconcile triggered meanwhile (a pod or StatefulSet event) would compare against the old phase and report the
     * same transition twice.
     */
    void write(DhtCluster cluster, DhtClusterStatus status, Instant now, Context<DhtCluster> context) {
        if (StatusWrites.write(cluster, status, DhtCluster::new, context, metrics)
                .isEmpty()) {
            return;
        }
        var events = new ClusterEvents(context.getClient(), metrics);
        events.onTransition(cluster, status, now);
        events.onRefusal(cluster, status, now);
        events.onConditionFalse(cluster, status, SecurityConditions.CERTIFICATES, now);
        events.onConditionFalse(cluster, status, SecurityConditions.CLIENT_CERTIFICATES, now);
        events.onConditionFalse(cluster, status, SecurityConditions.CREDENTIALS, now);
        events.onRotation(cluster, status, now);
    }
}
