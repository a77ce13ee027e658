package dev.dht.node.objectstore;

import java.nio.file.Path;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.regions.providers.AwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;

/**
 * Who the node is to the object store. With a credentials directory (a mounted Secret: {@link CredentialsFile}), its
 * static keys. Without one, the AWS SDK's default chain, in its order: the {@code aws.*} system properties; the
 * environment ({@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY}, {@code AWS_SESSION_TOKEN}); a web identity
 * token file ({@code AWS_WEB_IDENTITY_TOKEN_FILE} and {@code AWS_ROLE_ARN}, exchanged with STS: EKS IRSA); the
 * profile files ({@code ~/.aws/credentials}, {@code ~/.aws/config}); the container credentials endpoint
 * ({@code AWS_CONTAINER_CREDENTIALS_FULL_URI} with {@code AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE}: EKS Pod
 * Identity, ECS); the EC2 instance profile. Temporary credentials are refreshed by the SDK before they expire.
 */
public final class StoreCredentials {
    private final AwsCredentialsProvider provider;
    private final String description;

    private StoreCredentials(AwsCredentialsProvider inner, String description) {
        this.description = description;
        // a failure to find any is told apart from the store refusing them (StoreErrors)
        this.provider = new AwsCredentialsProvider() {
            @Override
            public AwsCredentials resolveCredentials() {
                try {
                    return inner.resolveCredentials();
                } catch (SdkClientException | IllegalStateException e) {
                    throw new Unavailable(description + ": " + e.getMessage(), e);
                }
            }

            @Override
            public String toString() {
                return description;
            }
        };
    }

    /** @param dir the credentials directory, or null for the default chain */
    public static StoreCredentials of(Path dir) {
        if (dir != null) {
            return new StoreCredentials(new CredentialsFile(dir), "static keys in " + dir);
        }
        return new StoreCredentials(
                DefaultCredentialsProvider.builder().build(),
                "the default credential chain (environment, web identity token file, profile, container"
                        + " credentials endpoint, instance profile)");
    }

    AwsCredentialsProvider provider() {
        return provider;
    }

    /**
     * The signing region: the configured one, else AWS_REGION (or {@code aws.region}) or the profile's, else
     * us-east-1 (S3-compatible stores take any; on AWS, S3's redirect then names the bucket's own region). The
     * instance metadata is not asked: a node off EC2 would wait on it at every start.
     */
    static String region(S3Location location) {
        if (location.region() != null) {
            return location.region();
        }
        try {
            return new AwsRegionProviderChain(new SystemSettingsRegionProvider(), new AwsProfileRegionProvider())
                    .getRegion()
                    .id();
        } catch (SdkClientException e) {
            return "us-east-1";
        }
    }

    @Override
    public String toString() {
        return description;
    }

    /** No credentials could be had (no Secret, and none in the chain; or the Secret's files unreadable). */
    static final class Unavailable extends SdkClientException {
        private static final long serialVersionUID = 1L;

        Unavailable(String message, Throwable cause) {
            super(SdkClientException.builder().message(message).cause(cause));
        }
    }
}
