package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

/**
 * Observed state, written only by the operator: the current run's fields (inherited) plus what identifies the
 * request it answers and the summaries of earlier runs. Unchanged JSON means no write (reconciler/StatusWrites).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DhtBenchmarkStatus extends BenchmarkRun {
    @JsonPropertyDescription("The metadata.generation the current run was started for.")
    public Long observedGeneration;

    @JsonPropertyDescription("The value of the dht.dev/rerun annotation the current run was started for.")
    public String observedRerun;

    @JsonPropertyDescription("Name of the PersistentVolumeClaim holding every run's artifacts.")
    public String resultsClaim;

    @JsonPropertyDescription("Earlier runs, newest first (at most 5); their artifacts stay in the results volume.")
    public List<BenchmarkRun> history = new ArrayList<>();

    /** The current run's part, for status.history. */
    public BenchmarkRun currentRun() {
        return super.copy();
    }

    public DhtBenchmarkStatus copyStatus() {
        var status = new DhtBenchmarkStatus();
        var run = copy();
        status.runId = run.runId;
        status.phase = run.phase;
        status.message = run.message;
        status.startTime = run.startTime;
        status.endTime = run.endTime;
        status.artifactPath = run.artifactPath;
        status.flamegraphs = run.flamegraphs;
        status.tapes = run.tapes;
        status.observedGeneration = observedGeneration;
        status.observedRerun = observedRerun;
        status.resultsClaim = resultsClaim;
        status.history = history == null ? new ArrayList<>() : new ArrayList<>(history);
        return status;
    }

    @Override
    public String toString() {
        return "DhtBenchmarkStatus{" + super.toString() + ", generation=" + observedGeneration + ", rerun="
                + observedRerun + ", history=" + history + "}";
    }
}
