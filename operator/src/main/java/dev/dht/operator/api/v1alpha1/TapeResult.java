package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Headline figures of one tape of a run (the full summary is in the results volume). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TapeResult {
    @JsonPropertyDescription("The tape.")
    public String tape;

    @JsonPropertyDescription("Completed requests per second.")
    public Double rps;

    @JsonPropertyDescription("99th percentile latency in milliseconds.")
    public Double p99Ms;

    @JsonPropertyDescription("Requests that failed (transport errors and unexpected statuses).")
    public Long errors;

    @JsonPropertyDescription("Requests the load generator could not start on schedule (it ran out of capacity:"
            + " the figures understate the latency the rate would cause).")
    public Long dropped;

    @JsonPropertyDescription("Profile ramp: the first rate at which p99 or the error rate crossed the runner's"
            + " threshold; absent when it never did.")
    public Double saturationRps;

    public TapeResult() {}

    public TapeResult(String tape, Double rps, Double p99Ms, Long errors, Long dropped, Double saturationRps) {
        this.tape = tape;
        this.rps = rps;
        this.p99Ms = p99Ms;
        this.errors = errors;
        this.dropped = dropped;
        this.saturationRps = saturationRps;
    }

    @Override
    public String toString() {
        return tape + "{rps=" + rps + ", p99Ms=" + p99Ms + ", errors=" + errors + ", dropped=" + dropped
                + ", saturationRps=" + saturationRps + "}";
    }
}
