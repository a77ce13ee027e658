package dev.dht.operator.benchmark.model;

import dev.dht.operator.api.v1alpha1.DhtBenchmark;
import dev.dht.operator.model.Owners;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;

/**
 * The results claim, {@code <benchmark>-results}: every run of the benchmark writes into it, under
 * {@code <benchmark>/<run id>/}. ReadWriteOnce: only the runs' Jobs mount it (the members' sidecars hand their
 * flamegraphs to the Job over HTTP), and one run at a time, so it works on any cluster and any storage class.
 * Owned by the benchmark (deleted with it) unless spec.results.retainOnDelete.
 */
public final class ResultsVolume {
    private ResultsVolume() {}

    public static PersistentVolumeClaim claim(DhtBenchmark benchmark, BenchmarkModel model) {
        var meta = Owners.metadata(
                benchmark, BenchmarkNames.resultsClaim(model.name()), BenchmarkNames.labels(model.name(), true));
        if (model.retainResults()) {
            meta.setOwnerReferences(List.of());
        }
        var claim = new PersistentVolumeClaimBuilder()
                .withMetadata(meta)
                .withNewSpec()
                .withAccessModes("ReadWriteOnce")
                .withNewResources()
                .withRequests(Map.of("storage", new Quantity(model.resultsSize())))
                .endResources()
                .endSpec()
                .build();
        model.resultsStorageClass().ifPresent(claim.getSpec()::setStorageClassName);
        return claim;
    }
}
