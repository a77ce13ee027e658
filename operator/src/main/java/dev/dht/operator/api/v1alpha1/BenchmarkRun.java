package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

/** One run of a benchmark: what status shows for the current run, and what status.history keeps of earlier ones. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BenchmarkRun {
    @JsonPropertyDescription("Run id (UTC start time, yyyyMMdd-HHmmss): the directory of its artifacts and the"
            + " suffix of its Job's name.")
    public String runId;

    @JsonPropertyDescription("Pending, Running, Succeeded or Failed.")
    public BenchmarkPhase phase;

    @JsonPropertyDescription("Why the run is waiting or failed, or what it could not capture.")
    public String message;

    @JsonPropertyDescription("When the load Job started (RFC 3339).")
    public String startTime;

    @JsonPropertyDescription("When the load Job finished (RFC 3339).")
    public String endTime;

    @JsonPropertyDescription("Directory of the run's artifacts in the results volume: <benchmark>/<run id>.")
    public String artifactPath;

    @JsonPropertyDescription("Flamegraph files the run left in the results volume.")
    public Integer flamegraphs;

    @JsonPropertyDescription("Headline figures per tape (summary.json in the results volume has them all).")
    public List<TapeResult> tapes = new ArrayList<>();

    public BenchmarkRun copy() {
        var run = new BenchmarkRun();
        run.runId = runId;
        run.phase = phase;
        run.message = message;
        run.startTime = startTime;
        run.endTime = endTime;
        run.artifactPath = artifactPath;
        run.flamegraphs = flamegraphs;
        run.tapes = tapes == null ? new ArrayList<>() : new ArrayList<>(tapes);
        return run;
    }

    @Override
    public String toString() {
        return "run " + runId + " " + phase + (message != null ? " (" + message + ")" : "") + " " + tapes;
    }
}
