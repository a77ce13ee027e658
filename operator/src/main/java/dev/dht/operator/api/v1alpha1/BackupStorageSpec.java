package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** An S3-compatible bucket and prefix, and the Secrets with its credentials and the encryption key. */
@JsonInclude(JsonInclude.Include.NON_NULL)
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

  @Default("us-east-1")
  @JsonPropertyDescription("Signing region.")
  public String region;

  @Default("true")
  @JsonPropertyDescription("Path-style requests (endpoint/bucket/key: MinIO, versitygw, most self-hosted stores);"
      + " false for virtual-hosted style (bucket.endpoint/key, AWS).")
  public Boolean pathStyle;

  @Required
  @JsonPropertyDescription("The Secret with the access key pair; mounted into the members' pods (the operator never"
      + " reads it).")
  public CredentialsSecretRef credentialsSecret;

  @JsonPropertyDescription("A Secret holding a key (at least 16 bytes, e.g. `openssl rand 32`): the members encrypt"
      + " every file before it leaves them (AES-256-GCM); a restore needs the same key.")
  public SecretKeyRef encryptionKeySecret;
}
