package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** Whose client this is and what it may do. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DhtUserSpec {
    @Required
    @Size(min = 1, max = 63)
    @ValidationRule(
            value = "self == oldSelf",
            message = "spec.cluster cannot change: create another DhtUser",
            reason = "FieldValueForbidden")
    @JsonPropertyDescription("Name of the DhtCluster (same namespace) whose client CA issues the certificate.")
    public String cluster;

    @Required
    @Pattern("^(read-only|read-write|admin)$")
    @JsonPropertyDescription("What the certificate allows, as a token's scope: read-only (reads, ranges, metrics),"
            + " read-write (also writes and deletes), admin (also admin operations). A change re-issues the certificate;"
            + " the old one keeps its scope until it expires.")
    public String scope;

    @Size(max = 253)
    @JsonPropertyDescription("The Secret the certificate is written to. Default <name>-dht-client.")
    public String secretName;
}
