package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtBackup;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtUser;
import dev.dht.operator.model.Labels;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/** What a DhtCluster's reconcile watches: one informer per kind, which events reach which cluster, and its caches. */
final class ClusterInformers {
    /** Kinds the operator owns, each watched by one informer limited to the operator's objects. */
    static final List<Class<? extends HasMetadata>> OWNED = List.of(
            ServiceAccount.class,
            ConfigMap.class,
            Service.class,
            PodDisruptionBudget.class,
            StatefulSet.class,
            Secret.class,
            NetworkPolicy.class);

    private final Map<Class<?>, InformerEventSource<?, ?>> caches = new LinkedHashMap<>();

    /** The informers of the reconciler's event sources (made again each time JOSDK asks). */
    List<EventSource<?, DhtCluster>> prepare(EventSourceContext<DhtCluster> context) {
        caches.clear();
        for (var kind : OWNED) {
            // Default mapping: the owner reference to the DhtCluster.
            var config = InformerEventSourceConfiguration.from(kind, DhtCluster.class)
                    .withLabelSelector(Labels.MANAGED_SELECTOR)
                    .build();
            caches.put(kind, new InformerEventSource<>(config, context));
        }
        // Pods belong to the StatefulSet, not to the DhtCluster: map them by their instance label.
        var pods = InformerEventSourceConfiguration.from(Pod.class, DhtCluster.class)
                .withLabelSelector(Labels.MANAGED_SELECTOR)
                .withSecondaryToPrimaryMapper((Pod pod) -> {
                    var instance = pod.getMetadata().getLabels().get(Labels.INSTANCE);
                    return instance == null
                            ? Set.of()
                            : Set.of(new ResourceID(instance, pod.getMetadata().getNamespace()));
                })
                .build();
        caches.put(Pod.class, new InformerEventSource<>(pods, context));
        // A running backup holds scaling: its phase changes reach the cluster it names.
        caches.put(
                DhtBackup.class,
                toNamedCluster(DhtBackup.class, b -> b.getSpec() == null ? null : b.getSpec().cluster, context));
        // A DhtUser gets its client certificate from its cluster's reconcile (the client CA is there).
        caches.put(
                DhtUser.class,
                toNamedCluster(DhtUser.class, u -> u.getSpec() == null ? null : u.getSpec().cluster, context));
        var sources = new ArrayList<EventSource<?, DhtCluster>>();
        caches.values().forEach(s -> sources.add(asSource(s)));
        return sources;
    }

    /** The informers by kind: ResourceApplier puts what it wrote into them at once. */
    Map<Class<?>, InformerEventSource<?, ?>> caches() {
        return caches;
    }

    /** A Secret of the namespace from the informer's cache, whoever owns it (a DhtUser's certificate). */
    @SuppressWarnings("unchecked")
    Optional<Secret> secret(String namespace, String name) {
        var source = (InformerEventSource<Secret, DhtCluster>) caches.get(Secret.class);
        return source == null ? Optional.empty() : source.get(new ResourceID(name, namespace));
    }

    /** An informer on {@code kind} whose events reach the DhtCluster of the name {@code cluster} reads from it. */
    private static <R extends HasMetadata> InformerEventSource<R, DhtCluster> toNamedCluster(
            Class<R> kind, Function<R, String> cluster, EventSourceContext<DhtCluster> context) {
        var config = InformerEventSourceConfiguration.from(kind, DhtCluster.class)
                .withSecondaryToPrimaryMapper((R resource) -> {
                    var name = cluster.apply(resource);
                    return name == null
                            ? Set.of()
                            : Set.of(new ResourceID(name, resource.getMetadata().getNamespace()));
                })
                .build();
        return new InformerEventSource<>(config, context);
    }

    @SuppressWarnings("unchecked")
    private static EventSource<?, DhtCluster> asSource(InformerEventSource<?, ?> source) {
        return (EventSource<?, DhtCluster>) (EventSource<?, ?>) source;
    }
}
