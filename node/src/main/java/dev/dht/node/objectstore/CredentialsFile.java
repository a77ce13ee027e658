package dev.dht.node.objectstore;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.function.Supplier;

/**
 * Credentials from a directory holding two files, {@code access-key-id} and {@code secret-access-key} (how a
 * Kubernetes Secret is mounted). Re-read whenever a file's modification time changes, so rotated credentials are
 * used from the next request on: a long upload does not fail hours in because its key expired (cassandra-medusa
 * #483).
 */
public final class CredentialsFile implements Supplier<Credentials> {
    public static final String ACCESS_KEY_ID = "access-key-id";
    public static final String SECRET_ACCESS_KEY = "secret-access-key";

    private final Path dir;
    private FileTime readAt;
    private Credentials current;

    public CredentialsFile(Path dir) {
        this.dir = dir;
    }

    @Override
    public synchronized Credentials get() {
        Path id = dir.resolve(ACCESS_KEY_ID);
        Path secret = dir.resolve(SECRET_ACCESS_KEY);
        try {
            FileTime a = Files.getLastModifiedTime(id);
            FileTime b = Files.getLastModifiedTime(secret);
            FileTime newest = a.compareTo(b) >= 0 ? a : b;
            if (current == null || !newest.equals(readAt)) {
                current = new Credentials(Files.readString(id, StandardCharsets.UTF_8).strip(),
                        Files.readString(secret, StandardCharsets.UTF_8).strip());
                readAt = newest;
            }
            return current;
        } catch (IOException | IllegalArgumentException e) {
            throw new ObjectStoreException("cannot read the object store credentials from " + dir + " (files "
                    + ACCESS_KEY_ID + " and " + SECRET_ACCESS_KEY + "): " + e.getMessage(), 0, "Credentials");
        }
    }
}
