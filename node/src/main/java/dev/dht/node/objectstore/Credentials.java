package dev.dht.node.objectstore;

/** An S3 access key pair. toString never shows the secret. */
public record Credentials(String accessKeyId, String secretAccessKey) {
    public Credentials {
        if (accessKeyId == null || accessKeyId.isBlank() || secretAccessKey == null || secretAccessKey.isBlank()) {
            throw new IllegalArgumentException("an access key id and a secret access key are both needed");
        }
    }

    @Override
    public String toString() {
        return "Credentials[" + accessKeyId + ", secret hidden]";
    }
}
