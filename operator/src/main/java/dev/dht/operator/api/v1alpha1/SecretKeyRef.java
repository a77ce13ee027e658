package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;

/** One key of a Secret in the cluster's namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SecretKeyRef {
    @Required
    @JsonPropertyDescription("Name of the Secret.")
    public String name;

    @Default("key")
    @JsonPropertyDescription("The Secret's key.")
    public String key;
}
