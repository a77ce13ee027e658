package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** Anti-entropy repair: how often the members compare their replicas and send each other what is missing. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RepairSpec {
    @Default("true")
    @JsonPropertyDescription("Whether the members repair on their own, every interval. Without repair a replica that"
            + " missed writes longer than hints last catches up only through reads, and tombstones are never purged"
            + " (a tombstone goes only after every replica of its range was repaired). Default: true.")
    public Boolean enabled;

    @Default(Defaults.REPAIR_INTERVAL)
    @Size(max = 16)
    @ValidationRule(value = ServerSpec.DURATION, message = "repair.interval must be a duration such as 6h or 30m")
    @JsonPropertyDescription("How often each replica set is repaired (the node's --repair-interval). At most half of"
            + " server.tombstoneGrace (default 1d), so that tombstones are purged in time. Default: 6h.")
    public String interval;

    @Default(Defaults.REPAIR_RATE)
    @Size(max = 32)
    @ValidationRule(
            value = ServerSpec.POSITIVE_QUANTITY,
            message = "repair.rate must be a positive Kubernetes quantity such as 4Mi")
    @JsonPropertyDescription("Bytes per second of repair and rebuild traffic (hashes and records) each member moves"
            + " at most (the node's --repair-rate). Default: 4Mi.")
    public String rate;
}
