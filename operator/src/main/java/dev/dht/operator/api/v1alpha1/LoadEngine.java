package dev.dht.operator.api.v1alpha1;

/** What sends a run's load. Both run the same tapes and profiles and report the same figures. */
public enum LoadEngine {
    /** k6 (the default): an open model through its arrival-rate executors; tops out near 8-10k req/s on 2 cores. */
    @com.fasterxml.jackson.annotation.JsonProperty("k6")
    K6,
    /**
     * oha at a fixed rate with --latency-correction (wrk2's role): every request timed from when it was due, so
     * latency stays honest when the server falls behind; holds rates k6 cannot. Its ramp is a staircase of short
     * fixed-rate steps.
     */
    @com.fasterxml.jackson.annotation.JsonProperty("oha")
    OHA;

    public String id() {
        return this == K6 ? "k6" : "oha";
    }
}
