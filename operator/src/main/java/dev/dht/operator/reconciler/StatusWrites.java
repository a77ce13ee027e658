package dev.dht.operator.reconciler;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How the reconcilers write the status of their own resource: a server-side apply of the status alone (a copy that
 * holds only the name, the namespace and the status), put into JOSDK's cache so that the next reconcile sees it, and
 * nothing at all while the status is unchanged.
 */
public final class StatusWrites {
    /** How a status goes to the API server; two statuses are the same when their JSON is. */
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private StatusWrites() {}

    /**
     * @param empty a new, empty resource of the primary's kind
     * @return the resource as the API server returned it, empty when the status was unchanged (nothing written)
     */
    public static <P extends CustomResource<?, S>, S> Optional<P> write(
            P primary, S status, Supplier<P> empty, Context<P> context, WriteMetrics metrics) {
        return statusOnly(primary, status, empty).map(fresh -> {
            metrics.write(HasMetadata.getKind(primary.getClass()) + "/status");
            return PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(primary, fresh, context);
        });
    }

    /**
     * What to apply to the status subresource for {@code status}: a new resource of the kind with only the name, the
     * namespace and the status; empty when the resource already holds that status.
     */
    static <R extends CustomResource<?, S>, S> Optional<R> statusOnly(R resource, S status, Supplier<R> empty) {
        if (same(status, resource.getStatus())) {
            return Optional.empty();
        }
        var fresh = empty.get();
        fresh.getMetadata().setName(resource.getMetadata().getName());
        fresh.getMetadata().setNamespace(resource.getMetadata().getNamespace());
        fresh.setStatus(status);
        return Optional.of(fresh);
    }

    /** Whether two statuses say the same: equal JSON trees (field order aside), what the API server would store. */
    public static boolean same(Object status, Object stored) {
        return stored != null && Objects.equals(tree(status), tree(stored));
    }

    private static JsonNode tree(Object status) {
        return JSON.convertValue(status, JsonNode.class);
    }
}
