package dev.dht.operator.benchmark.model;

import dev.dht.operator.api.v1alpha1.DhtBenchmark;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.Map;

/** Metadata of a benchmark's objects: owned by it, so Kubernetes' garbage collector removes them with it. */
final class BenchmarkOwners {
    private BenchmarkOwners() {}

    static ObjectMeta metadata(DhtBenchmark benchmark, String name, Map<String, String> labels) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(benchmark.getMetadata().getNamespace())
                .withLabels(labels)
                .withOwnerReferences(new OwnerReferenceBuilder()
                        .withApiVersion(benchmark.getApiVersion())
                        .withKind(benchmark.getKind())
                        .withName(benchmark.getMetadata().getName())
                        .withUid(benchmark.getMetadata().getUid())
                        .withController(true)
                        .withBlockOwnerDeletion(true)
                        .build())
                .build();
    }
}
