package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * An S3-compatible bucket and prefix, who the members are to it (a Secret's keys, or their own cloud identity), and
 * the encryption key's Secret.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "has(self.credentialsSecret) != has(self.cloudIdentity)",
        message = "spec.backup.storage needs one of credentialsSecret (static keys) or cloudIdentity (the members' own:"
                + " IRSA, EKS Pod Identity), not both")
public class BackupStorageSpec {
    @Required
    @Size(max = 512)
    @Pattern("^https?://[^/\\s]+/?$")
    @JsonPropertyDescription("The store's endpoint, http(s)://host[:port], e.g. https://s3.eu-west-1.amazonaws.com or"
            + " http://minio.storage.svc:9000.")
    public String endpoint;

    @Required
    @Pattern("^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
    @JsonPropertyDescription("The bucket (it must exist).")
    public String bucket;

    @Size(max = 256)
    @Pattern("^[A-Za-z0-9._/-]*$")
    @JsonPropertyDescription("Key prefix inside the bucket; several clusters may share a bucket under different"
            + " prefixes. Backups of the same prefix share their stored files.")
    public String prefix;

    @Size(max = 64)
    @JsonPropertyDescription("Signing region. Default: the members' AWS_REGION if their pods have one (the IRSA"
            + " webhook sets it), else us-east-1; a bucket in another region is then found by S3's redirect.")
    public String region;

    @Default("true")
    @JsonPropertyDescription("Path-style requests (endpoint/bucket/key: MinIO, versitygw, most self-hosted stores);"
            + " false for virtual-hosted style (bucket.endpoint/key, AWS).")
    public Boolean pathStyle;

    @JsonPropertyDescription(
            "The Secret with an access key pair (S3-compatible stores, GCS HMAC keys); mounted into the"
                    + " members' pods (the operator never reads it). Or cloudIdentity.")
    public CredentialsSecretRef credentialsSecret;

    @JsonPropertyDescription("No static keys: the members' ServiceAccount carries a cloud identity (IRSA, EKS Pod"
            + " Identity) and the node takes the AWS SDK's default credential chain. Or credentialsSecret.")
    public CloudIdentitySpec cloudIdentity;

    @JsonPropertyDescription(
            "A Secret holding a key (at least 16 bytes, e.g. `openssl rand 32`): the members encrypt"
                    + " every file before it leaves them (Tink's AES256_GCM_HKDF_1MB streaming AEAD); a restore needs the same key.")
    public SecretKeyRef encryptionKeySecret;
}
