package dev.dht.operator.api.v1alpha1;

/**
 * DhtBenchmark spec defaults. They appear in the CRD schema (the API server fills them in) and the benchmark
 * model applies the same values when a field is absent anyway (unit tests, objects written before a default).
 */
public final class BenchmarkDefaults {
    public static final String TAPES = "[\"put-unique\",\"put-overwrite\",\"get-uniform\",\"get-recent\",\"mixed\"]";
    public static final String PROFILE = "const";
    public static final String ENGINE = "k6";
    public static final String RATE = "1000";
    public static final String DURATION = "60s";
    public static final String PREFILL = "10000";
    public static final String VALUE_SIZE = "100";
    public static final String TARGET = "service";
    public static final String CAPTURE = "10s";
    public static final String RESULTS_SIZE = "1Gi";
    /** Whole seconds, minutes or hours: what the runner, k6 and the node's profile endpoint all read. */
    public static final String DURATION_PATTERN = "^[1-9][0-9]{0,5}(s|m|h)$";

    private BenchmarkDefaults() {}
}
