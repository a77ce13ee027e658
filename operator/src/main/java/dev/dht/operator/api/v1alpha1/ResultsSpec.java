package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The results PersistentVolumeClaim, <benchmark>-results, created once and never changed. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ResultsSpec {
    @Size(max = 32)
    @ValidationRule(
            value = ServerSpec.POSITIVE_QUANTITY,
            message = "results.size must be a positive Kubernetes quantity such as 1Gi")
    @Default(BenchmarkDefaults.RESULTS_SIZE)
    @JsonPropertyDescription("Size of the results volume (k6 summaries, time series, flamegraphs of every run).")
    public String size;

    @JsonPropertyDescription("StorageClass of the results volume. Default: the cluster's default class.")
    public String storageClassName;

    @Default("false")
    @JsonPropertyDescription("Keep the results volume when the DhtBenchmark is deleted. false: it goes with the"
            + " benchmark (make bench-fetch first).")
    public Boolean retainOnDelete;
}
