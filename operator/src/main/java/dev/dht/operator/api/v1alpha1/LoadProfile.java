package dev.dht.operator.api.v1alpha1;

/** How the arrival rate of a tape evolves (open model: requests start on schedule, whatever the latency). */
public enum LoadProfile {
    /** A constant rate (spec.rate) for the whole duration. */
    @com.fasterxml.jackson.annotation.JsonProperty("const")
    CONST,
    /** A rate rising linearly from 1 to spec.rampTo over the duration; reports the saturation point. */
    @com.fasterxml.jackson.annotation.JsonProperty("ramp")
    RAMP;

    public String id() {
        return this == CONST ? "const" : "ramp";
    }
}
