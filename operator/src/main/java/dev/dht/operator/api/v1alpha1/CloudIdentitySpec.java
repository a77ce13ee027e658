package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.Map;

/**
 * The members' own cloud identity instead of static keys: annotations for their ServiceAccount (IRSA), or none (EKS
 * Pod Identity, associated with the ServiceAccount by name). The node then takes the AWS SDK's default credential
 * chain (docs/operations.md, "Say where backups go").
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CloudIdentitySpec {
    @Size(max = 16)
    @JsonPropertyDescription("Annotations put on the members' ServiceAccount (named like the cluster), e.g."
            + " eks.amazonaws.com/role-arn: arn:aws:iam::111122223333:role/dht-backup for IRSA. Empty for EKS Pod Identity"
            + " (an association of the role with that ServiceAccount, made with the EKS API). A change rolls the pods: the"
            + " cloud's webhook injects the identity when a pod is created.")
    public Map<String, String> serviceAccountAnnotations;
}
