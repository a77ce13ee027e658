package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class ServerSpec {
    public static final String DURATION = "self.matches('^[0-9]+(ms|s|m|h|d)$')";
    /** A Kubernetes quantity above zero, such as 4Mi (rates and sizes). */
    public static final String POSITIVE_QUANTITY = "isQuantity(self) && quantity(self).isGreaterThan(quantity('0'))";

    @Size(max = 16)
    @ValidationRule(value = DURATION, message = "server.requestTimeout must be a duration such as 500ms, 1s or 2m")
    @JsonPropertyDescription(
            "How long a coordinator waits for replica answers (the node's --request-timeout), e.g. 1s.")
    public String requestTimeout;

    @Min(1)
    @Max(1024)
    @JsonPropertyDescription("Worker threads (the node's --workers). Default: by CPU count.")
    public Integer workers;

    @Min(1)
    @JsonPropertyDescription("Bounded request queue (the node's --queue-size); a full queue answers 503.")
    public Integer queueSize;

    @Size(max = 32)
    @ValidationRule(
            value = POSITIVE_QUANTITY,
            message = "server.maxBody must be a positive Kubernetes quantity such as 16Mi")
    @JsonPropertyDescription("Largest accepted request body (the node's --max-body); larger ones get 413.")
    public String maxBody;

    @Size(max = 16)
    @ValidationRule(value = DURATION, message = "server.tombstoneGrace must be a duration such as 12h or 1d")
    @JsonPropertyDescription("Tombstones older than this are dropped in compaction (the node's --tombstone-grace).")
    public String tombstoneGrace;
}
