package dev.dht.operator.reconciler;

import dev.dht.operator.model.Hashing;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a desired object only when it differs from the live one, by server-side apply with the
 * operator's field manager. "Differs" means a different content hash (see {@link Hashing}), or for
 * a StatefulSet a replica count someone changed behind the operator's back.
 */
final class ResourceApplier {
    static final String FIELD_MANAGER = "dht-operator";
    private static final Logger log = LoggerFactory.getLogger(ResourceApplier.class);

    private final KubernetesClient client;
    private final Map<Class<?>, InformerEventSource<?, ?>> caches;
    private final WriteMetrics metrics;

    ResourceApplier(KubernetesClient client, Map<Class<?>, InformerEventSource<?, ?>> caches, WriteMetrics metrics) {
        this.client = client;
        this.caches = caches;
        this.metrics = metrics;
    }

    <R extends HasMetadata> R apply(R desired, Optional<R> live) {
        if (live.isPresent() && upToDate(live.get(), desired)) {
            return live.get();
        }
        R applied = client.resource(desired)
                .fieldManager(FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply();
        remember(applied, live);
        metrics.write(desired.getKind());
        log.info(
                "{} {} {}",
                live.isPresent() ? "updated" : "created",
                desired.getKind(),
                desired.getMetadata().getName());
        return applied;
    }

    /** Counts and logs a write made elsewhere (a kind this applier cannot address, such as cert-manager's). */
    void counted(HasMetadata written) {
        metrics.write(written.getKind());
        log.info("applied {} {}", written.getKind(), written.getMetadata().getName());
    }

    static boolean upToDate(HasMetadata live, HasMetadata desired) {
        if (!Objects.equals(Hashing.stampOf(live), Hashing.stampOf(desired))) {
            return false;
        }
        if (live instanceof StatefulSet liveSet && desired instanceof StatefulSet desiredSet) {
            return Objects.equals(
                    liveSet.getSpec().getReplicas(), desiredSet.getSpec().getReplicas());
        }
        return true;
    }

    /** Puts our own write into the informer's cache, so that the next reconcile does not see a stale object. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private <R extends HasMetadata> void remember(R applied, Optional<R> live) {
        InformerEventSource source = caches.get(applied.getClass());
        if (source == null) {
            return;
        }
        var id = ResourceID.fromResource(applied);
        if (live.isPresent()) {
            source.handleRecentResourceUpdate(id, applied, live.get());
        } else {
            source.handleRecentResourceCreate(id, applied);
        }
    }
}
