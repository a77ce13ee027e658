package dev.dht.node.config;

import dev.dht.node.objectstore.S3Location;
import java.nio.file.Path;

/**
 * Where and how this node backs up and restores (docs/operations.md, "Back up and restore"): the object store, the
 * credentials and encryption key files, and the transfer rates. Parsed by {@link ConfigParser#backup}; a setting of
 * the process beside {@link NodeConfig}.
 *
 * @param location      the object store, or null when no backup is configured (the endpoints answer 409 then)
 * @param credentials   directory with the files access-key-id and secret-access-key (a mounted Secret), or null for
 *                      the AWS SDK's default credential chain (IRSA, EKS Pod Identity, environment, ...)
 * @param encryptionKey file with the client-side encryption key, or null for none
 * @param uploadRate    bytes per second a backup uploads at most (0: unthrottled)
 * @param partSize      files larger than this are uploaded in parts of this size, resumed after a restart
 * @param restoreRate   bytes per second a restore downloads, and sends to the owners, at most (0: unthrottled)
 * @param restoring     a node with a new data directory waits for a restore before it serves clients
 */
public record BackupSettings(
        S3Location location,
        Path credentials,
        Path encryptionKey,
        long uploadRate,
        long partSize,
        long restoreRate,
        boolean restoring) {
    /** NodeOption.BACKUP_RATE says why. */
    public static final long DEFAULT_UPLOAD_RATE = NodeOption.BACKUP_RATE.sizeDefault();
    /** NodeOption.BACKUP_PART_SIZE says why. */
    public static final long DEFAULT_PART_SIZE = NodeOption.BACKUP_PART_SIZE.sizeDefault();
    /** S3's smallest part (all but the last). */
    public static final long MIN_PART_SIZE = 5L << 20;

    public static final BackupSettings NONE = new BackupSettings(
            null,
            null,
            null,
            DEFAULT_UPLOAD_RATE,
            DEFAULT_PART_SIZE,
            NodeOption.RESTORE_RATE.sizeDefault(),
            NodeOption.RESTORING.boolDefault());

    public boolean configured() {
        return location != null;
    }
}
