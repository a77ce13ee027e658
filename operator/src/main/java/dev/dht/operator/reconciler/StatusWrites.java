package dev.dht.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How the reconcilers write the status of their own resource: a server-side apply of the status alone (a copy that
 * holds only the name, the namespace and the status), put into JOSDK's cache so that the next reconcile sees it, and
 * nothing at all while the status is unchanged.
 */
public final class StatusWrites {
    private StatusWrites() {}

    /**
     * @param empty a new, empty resource of the primary's kind
     * @return the resource as the API server returned it, empty when the status was unchanged (nothing written)
     */
    public static <P extends CustomResource<?, S>, S> Optional<P> write(
            P primary, S status, Supplier<P> empty, Context<P> context, WriteMetrics metrics) {
        if (status.equals(primary.getStatus())) {
            return Optional.empty();
        }
        metrics.write(HasMetadata.getKind(primary.getClass()) + "/status");
        var fresh = empty.get();
        fresh.getMetadata().setName(primary.getMetadata().getName());
        fresh.getMetadata().setNamespace(primary.getMetadata().getNamespace());
        fresh.setStatus(status);
        return Optional.of(PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(primary, fresh, context));
    }
}
