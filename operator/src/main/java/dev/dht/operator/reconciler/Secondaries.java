package dev.dht.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Optional;

/** The secondary resources a reconcile sees, from JOSDK's informer caches. */
public final class Secondaries {
    private Secondaries() {}

    /** The cached secondary resource of this kind and name, if there is one. */
    public static <R extends HasMetadata> Optional<R> named(Context<?> context, Class<R> kind, String name) {
        return context.getSecondaryResources(kind).stream()
                .filter(r -> name.equals(r.getMetadata().getName()))
                .findFirst();
    }
}
