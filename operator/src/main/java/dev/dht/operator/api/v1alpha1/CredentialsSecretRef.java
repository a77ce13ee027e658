package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;

/** A Secret in the cluster's namespace with an S3 access key id and secret access key. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CredentialsSecretRef {
    @Required
    @JsonPropertyDescription("Name of the Secret.")
    public String name;

    @Default("AWS_ACCESS_KEY_ID")
    @JsonPropertyDescription("The Secret's key holding the access key id.")
    public String accessKeyIdKey;

    @Default("AWS_SECRET_ACCESS_KEY")
    @JsonPropertyDescription("The Secret's key holding the secret access key.")
    public String secretAccessKeyKey;
}
