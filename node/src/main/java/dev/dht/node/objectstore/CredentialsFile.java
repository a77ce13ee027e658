package dev.dht.node.objectstore;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * Static keys from a directory holding the files {@code access-key-id} and {@code secret-access-key}, and
 * {@code session-token} if the keys are temporary (how a Kubernetes Secret is mounted). Re-read whenever a file's
 * modification time changes, so rotated keys are used from the next request on: a long upload does not fail hours
 * in because its key was replaced (cassandra-medusa #483). Without such a directory the node takes the SDK's
 * default chain instead ({@link StoreCredentials}).
 */
public final class CredentialsFile implements AwsCredentialsProvider {
    public static final String ACCESS_KEY_ID = "access-key-id";
    public static final String SECRET_ACCESS_KEY = "secret-access-key";
    public static final String SESSION_TOKEN = "session-token";

    private final Path dir;
    private FileTime readAt;
    private AwsCredentials current;

    public CredentialsFile(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    @Override
    public synchronized AwsCredentials resolveCredentials() {
        Path id = dir.resolve(ACCESS_KEY_ID);
        Path secret = dir.resolve(SECRET_ACCESS_KEY);
        Path token = dir.resolve(SESSION_TOKEN);
        try {
            FileTime newest = newest(Files.getLastModifiedTime(id), Files.getLastModifiedTime(secret));
            boolean hasToken = Files.exists(token);
            if (hasToken) {
                newest = newest(newest, Files.getLastModifiedTime(token));
            }
            if (current == null || !newest.equals(readAt)) {
                String key = read(id);
                String secretKey = read(secret);
                if (key.isEmpty() || secretKey.isEmpty()) {
                    throw new IOException("a file is empty");
                }
                current = hasToken
                        ? AwsSessionCredentials.create(key, secretKey, read(token))
                        : AwsBasicCredentials.create(key, secretKey);
                readAt = newest;
            }
            return current;
        } catch (IOException e) {
            throw SdkClientException.create(
                    "cannot read the object store credentials from " + dir + " (files " + ACCESS_KEY_ID + " and "
                            + SECRET_ACCESS_KEY + "): " + e.getMessage(),
                    e);
        }
    }

    private static FileTime newest(FileTime a, FileTime b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8).strip();
    }

    @Override
    public String toString() {
        return "keys in " + dir;
    }
}
