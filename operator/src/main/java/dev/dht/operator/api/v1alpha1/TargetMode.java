package dev.dht.operator.api.v1alpha1;

/** Where the load goes. */
public enum TargetMode {
    /** The cluster's client Service (Kubernetes spreads connections over the ready members). */
    @com.fasterxml.jackson.annotation.JsonProperty("service")
    SERVICE,
    /** Every member directly, by its stable DNS name (round robin in the runner). */
    @com.fasterxml.jackson.annotation.JsonProperty("members")
    MEMBERS;

    public String id() {
        return this == SERVICE ? "service" : "members";
    }
}
