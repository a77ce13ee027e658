package dev.dht.node.objectstore;

import java.net.URI;

/**
 * Where backups live: an S3-compatible endpoint, a bucket and a key prefix inside it.
 *
 * @param endpoint  {@code http(s)://host[:port]}
 * @param bucket    the bucket (it must exist, or the client creates it: {@link ObjectStore#ensureBucket})
 * @param prefix    keys start with it (no leading or trailing '/'; empty for the bucket's root)
 * @param region    the signing region, or null: AWS_REGION or the profile's, else us-east-1, and the bucket's own
 *                  region once S3 redirects to it ({@link S3ObjectStore})
 * @param pathStyle {@code endpoint/bucket/key} (true: MinIO, versitygw, most self-hosted stores) or
 *                  {@code bucket.endpoint/key} (false: AWS's virtual-hosted style)
 */
public record S3Location(URI endpoint, String bucket, String prefix, String region, boolean pathStyle) {
    public S3Location {
        if (endpoint == null
                || endpoint.getHost() == null
                || !("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme()))) {
            throw new IllegalArgumentException(
                    "the endpoint must be an http:// or https:// URL with a host, not " + endpoint);
        }
        if (bucket == null || !bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
            throw new IllegalArgumentException(
                    "bad bucket name '" + bucket + "': 3-63 lowercase letters, digits," + " '.' and '-'");
        }
        prefix = prefix == null ? "" : prefix.replaceAll("^/+|/+$", "");
        region = region == null || region.isBlank() ? null : region.strip();
    }

    /** The object key of a path under the prefix. */
    public String key(String path) {
        return prefix.isEmpty() ? path : prefix + "/" + path;
    }

    /** The path under the prefix of an object key (the key itself if it is not under the prefix). */
    public String path(String key) {
        return prefix.isEmpty() || !key.startsWith(prefix + "/") ? key : key.substring(prefix.length() + 1);
    }

    @Override
    public String toString() {
        return endpoint + (pathStyle ? "/" : " bucket ") + bucket + "/" + prefix;
    }
}
