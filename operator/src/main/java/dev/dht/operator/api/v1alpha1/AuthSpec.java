package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;

/** Bearer tokens on the client API. On by default. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AuthSpec {
    @Default("true")
    @JsonPropertyDescription("Clients need a bearer token (401 without one; /v0/status stays open for probes). false:"
            + " the client API is open to whoever reaches the port.")
    public Boolean enabled;

    @Size(max = 253)
    @JsonPropertyDescription("The Secret holding the tokens: one key per token, named after its scope (read-write,"
            + " read-only, admin) with an optional suffix (read-write.previous). Default <name>-auth, which the operator"
            + " creates with one token of each scope if it does not exist, and never changes afterwards. Rotate by adding"
            + " the new token under a second key, moving clients, then removing the old key.")
    public String secretName;
}
