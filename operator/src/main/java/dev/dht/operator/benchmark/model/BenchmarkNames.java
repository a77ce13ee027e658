package dev.dht.operator.benchmark.model;

import dev.dht.operator.model.Labels;
import java.util.LinkedHashMap;
import java.util.Map;

/** Names and labels of what a benchmark owns, derived from its name and run ids. */
public final class BenchmarkNames {
    /** Label on a benchmark's Jobs, their pods and its results claim: the benchmark's name (maps them back to it). */
    public static final String BENCHMARK_LABEL = "dht.dev/benchmark";
    /** Label on a run's Job and pods: the run id. */
    public static final String RUN_LABEL = "dht.dev/run";

    public static final String COMPONENT_BENCHMARK = "benchmark";
    /** Where the Job mounts the results volume; a run writes under RESULTS_DIR/<benchmark>/<run id>/. */
    public static final String RESULTS_DIR = "/results";

    private BenchmarkNames() {}

    public static String job(String benchmark, String runId) {
        return benchmark + "-" + runId;
    }

    public static String resultsClaim(String benchmark) {
        return benchmark + "-results";
    }

    /** The run's directory inside the results volume. */
    public static String artifactPath(String benchmark, String runId) {
        return benchmark + "/" + runId;
    }

    /**
     * Labels of a benchmark's objects. The Job and results claim carry managed-by (the operator's informers
     * watch them); its pods do not, so that the DhtCluster reconciler, which maps managed pods to clusters by
     * their instance label, never mistakes a load pod for a member.
     */
    public static Map<String, String> labels(String benchmark, boolean managed) {
        var labels = new LinkedHashMap<String, String>();
        labels.put(Labels.NAME, Labels.APP);
        labels.put(Labels.INSTANCE, benchmark);
        labels.put(Labels.COMPONENT, COMPONENT_BENCHMARK);
        if (managed) {
            labels.put(Labels.MANAGED_BY, Labels.OPERATOR);
        }
        labels.put(BENCHMARK_LABEL, benchmark);
        return labels;
    }

    public static Map<String, String> runLabels(String benchmark, String runId, boolean managed) {
        var labels = labels(benchmark, managed);
        labels.put(RUN_LABEL, runId);
        return labels;
    }
}
