package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;

/** Requests and limits of the node container (Kubernetes' ResourceRequirements, checked field by field). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.requests) || !has(self.limits) || !has(self.requests.memory) || !has(self.limits.memory)"
                + " || !isQuantity(self.requests.memory) || !isQuantity(self.limits.memory)"
                + " || quantity(self.requests.memory).compareTo(quantity(self.limits.memory)) <= 0",
        message = "resources.requests.memory must not exceed resources.limits.memory",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = "!has(self.requests) || !has(self.limits) || !has(self.requests.cpu) || !has(self.limits.cpu)"
                + " || !isQuantity(self.requests.cpu) || !isQuantity(self.limits.cpu)"
                + " || quantity(self.requests.cpu).compareTo(quantity(self.limits.cpu)) <= 0",
        message = "resources.requests.cpu must not exceed resources.limits.cpu",
        reason = "FieldValueInvalid")
public class ComputeResources {
    @JsonPropertyDescription("What the scheduler reserves for each member.")
    public ResourceList requests;

    @JsonPropertyDescription("What each member may use at most (memory above the limit kills the container).")
    public ResourceList limits;

    public ComputeResources() {}

    public ComputeResources(ResourceList requests, ResourceList limits) {
        this.requests = requests;
        this.limits = limits;
    }
}
