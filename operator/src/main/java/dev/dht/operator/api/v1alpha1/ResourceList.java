package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The resources a node container asks for or is limited to (named fields, so each is validated). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ResourceList {
    @Size(max = 32)
    @ValidationRule(
            value = ServerSpec.POSITIVE_QUANTITY,
            message = "cpu must be a positive Kubernetes quantity such as 500m or 2")
    @JsonPropertyDescription("CPU, e.g. 500m or 2.")
    public String cpu;

    @Size(max = 32)
    @ValidationRule(
            value = ServerSpec.POSITIVE_QUANTITY,
            message = "memory must be a positive Kubernetes quantity such as 512Mi or 2Gi")
    @JsonPropertyDescription("Memory, e.g. 2Gi.")
    public String memory;

    @Size(max = 32)
    @JsonProperty("ephemeral-storage")
    @ValidationRule(
            value = ServerSpec.POSITIVE_QUANTITY,
            message = "ephemeral-storage must be a positive Kubernetes quantity such as 1Gi")
    @JsonPropertyDescription("Scratch space (/tmp, logs), e.g. 1Gi.")
    public String ephemeralStorage;

    public ResourceList() {}

    public ResourceList(String cpu, String memory) {
        this.cpu = cpu;
        this.memory = memory;
    }
}
