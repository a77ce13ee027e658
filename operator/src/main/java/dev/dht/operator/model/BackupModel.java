package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.BackupSpec;
import dev.dht.operator.api.v1alpha1.Defaults;
import dev.dht.operator.api.v1alpha1.NodeOptions;
import dev.dht.operator.api.v1alpha1.RestoreFromSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A cluster's backup settings (spec.backup, spec.restoreFrom) as the members get them: DHT_BACKUP_* settings, the
 * credentials and encryption key Secrets mounted as files (the node re-reads rotated credentials; the operator never
 * reads a Secret), or instead of credentials the annotations of the members' ServiceAccount that give them a cloud
 * identity (the node then takes the AWS SDK's default credential chain). Pure.
 *
 * @param storage      the store, empty when the cluster has no spec.backup
 * @param uploadRate   bytes per second a member uploads at most
 * @param restoreRate  bytes per second a member downloads at most during a restore (empty: unlimited)
 * @param restoreFrom  the backup a new cluster is made from, if any
 */
public record BackupModel(
        Optional<Storage> storage, long uploadRate, Optional<Long> restoreRate, Optional<RestoreFromSpec> restoreFrom) {

    /** The CRD's default (Defaults.BACKUP_UPLOAD_RATE) in bytes: for a spec that names no rate, and for no backup. */
    static final long DEFAULT_UPLOAD_RATE = ClusterModel.bytes("spec.backup.uploadRate", Defaults.BACKUP_UPLOAD_RATE)
            .orElseThrow();

    public static final BackupModel NONE =
            new BackupModel(Optional.empty(), DEFAULT_UPLOAD_RATE, Optional.empty(), Optional.empty());
    public static final String CREDENTIALS_VOLUME = "backup-credentials";
    public static final String CREDENTIALS_DIR = "/etc/dht/backup/credentials";
    public static final String ENCRYPTION_VOLUME = "backup-encryption";
    public static final String ENCRYPTION_DIR = "/etc/dht/backup/encryption";
    /** The node's file names in its credentials directory (dev.dht.node.objectstore.CredentialsFile). */
    static final String ACCESS_KEY_FILE = "access-key-id";

    static final String SECRET_KEY_FILE = "secret-access-key";
    static final String KEY_FILE = "key";

    /**
     * The store and its Secrets.
     *
     * @param region             empty: the node's AWS_REGION, else us-east-1 (and S3's redirect)
     * @param credentialsSecret  empty: the members' cloud identity (identityAnnotations on their ServiceAccount)
     */
    public record Storage(
            String endpoint,
            String bucket,
            String prefix,
            Optional<String> region,
            boolean pathStyle,
            Optional<String> credentialsSecret,
            String accessKeyIdKey,
            String secretAccessKeyKey,
            Map<String, String> identityAnnotations,
            Optional<String> keySecret,
            String keySecretKey) {}

    static BackupModel from(BackupSpec backup, RestoreFromSpec restoreFrom) {
        if (backup == null || backup.storage == null) {
            if (restoreFrom != null) {
                throw new InvalidSpecException(
                        "spec.restoreFrom needs spec.backup.storage: the store to read the backup from");
            }
            return NONE;
        }
        var s = backup.storage;
        var secret = Optional.ofNullable(s.credentialsSecret);
        if (secret.isPresent() == (s.cloudIdentity != null)) {
            throw new InvalidSpecException(
                    "spec.backup.storage needs one of credentialsSecret (static keys) or cloudIdentity"
                            + " (the members' own: IRSA, EKS Pod Identity), not both");
        }
        if (secret.isPresent()
                && (secret.get().name == null || secret.get().name.isBlank())) {
            throw new InvalidSpecException("spec.backup.storage.credentialsSecret.name is required");
        }
        var annotations = s.cloudIdentity == null || s.cloudIdentity.serviceAccountAnnotations == null
                ? Map.<String, String>of()
                : Map.copyOf(new TreeMap<>(s.cloudIdentity.serviceAccountAnnotations));
        var storage = new Storage(
                s.endpoint.replaceAll("/+$", ""),
                s.bucket,
                s.prefix == null ? "" : s.prefix,
                Optional.ofNullable(s.region).filter(r -> !r.isBlank()),
                s.pathStyle == null || s.pathStyle,
                secret.map(c -> c.name),
                secret.map(c -> c.accessKeyIdKey).orElse("AWS_ACCESS_KEY_ID"),
                secret.map(c -> c.secretAccessKeyKey).orElse("AWS_SECRET_ACCESS_KEY"),
                annotations,
                s.encryptionKeySecret == null ? Optional.empty() : Optional.of(s.encryptionKeySecret.name),
                s.encryptionKeySecret == null || s.encryptionKeySecret.key == null
                        ? KEY_FILE
                        : s.encryptionKeySecret.key);
        long upload =
                ClusterModel.bytes("spec.backup.uploadRate", backup.uploadRate).orElse(DEFAULT_UPLOAD_RATE);
        return new BackupModel(
                Optional.of(storage),
                upload,
                ClusterModel.bytes("spec.backup.restoreRate", backup.restoreRate),
                Optional.ofNullable(restoreFrom));
    }

    /** The node's DHT_BACKUP_* settings (and DHT_RESTORING for a cluster made from a backup). */
    public Map<String, String> environment() {
        var env = new TreeMap<String, String>();
        storage.ifPresent(s -> {
            env.put(NodeOptions.Env.BACKUP_ENDPOINT, s.endpoint());
            env.put(NodeOptions.Env.BACKUP_BUCKET, s.bucket());
            if (!s.prefix().isEmpty()) {
                env.put(NodeOptions.Env.BACKUP_PREFIX, s.prefix());
            }
            s.region().ifPresent(r -> env.put(NodeOptions.Env.BACKUP_REGION, r));
            env.put(NodeOptions.Env.BACKUP_PATH_STYLE, Boolean.toString(s.pathStyle()));
            s.credentialsSecret().ifPresent(c -> env.put(NodeOptions.Env.BACKUP_CREDENTIALS, CREDENTIALS_DIR));
            s.keySecret()
                    .ifPresent(k -> env.put(NodeOptions.Env.BACKUP_ENCRYPTION_KEY, ENCRYPTION_DIR + "/" + KEY_FILE));
            env.put(NodeOptions.Env.BACKUP_RATE, Long.toString(uploadRate));
            restoreRate.ifPresent(r -> env.put(NodeOptions.Env.RESTORE_RATE, Long.toString(r)));
        });
        if (restoreFrom.isPresent()) {
            env.put(NodeOptions.Env.RESTORING, "true");
        }
        return env;
    }

    /** The Secrets as volumes of the pod. */
    public List<Volume> volumes() {
        var out = new ArrayList<Volume>();
        storage.ifPresent(s -> {
            s.credentialsSecret()
                    .ifPresent(c -> out.add(new VolumeBuilder()
                            .withName(CREDENTIALS_VOLUME)
                            .withNewSecret()
                            .withSecretName(c)
                            .addNewItem()
                            .withKey(s.accessKeyIdKey())
                            .withPath(ACCESS_KEY_FILE)
                            .endItem()
                            .addNewItem()
                            .withKey(s.secretAccessKeyKey())
                            .withPath(SECRET_KEY_FILE)
                            .endItem()
                            .withDefaultMode(0440)
                            .endSecret()
                            .build()));
            s.keySecret()
                    .ifPresent(name -> out.add(new VolumeBuilder()
                            .withName(ENCRYPTION_VOLUME)
                            .withNewSecret()
                            .withSecretName(name)
                            .addNewItem()
                            .withKey(s.keySecretKey())
                            .withPath(KEY_FILE)
                            .endItem()
                            .withDefaultMode(0440)
                            .endSecret()
                            .build()));
        });
        return out;
    }

    /** The annotations of the members' ServiceAccount that give them a cloud identity (none with a Secret). */
    public Map<String, String> serviceAccountAnnotations() {
        return storage.map(Storage::identityAnnotations).orElse(Map.of());
    }

    /** Where the node container sees them (read-only). */
    public List<VolumeMount> mounts() {
        var out = new ArrayList<VolumeMount>();
        storage.ifPresent(s -> {
            s.credentialsSecret()
                    .ifPresent(c -> out.add(new VolumeMountBuilder()
                            .withName(CREDENTIALS_VOLUME)
                            .withMountPath(CREDENTIALS_DIR)
                            .withReadOnly(true)
                            .build()));
            s.keySecret()
                    .ifPresent(k -> out.add(new VolumeMountBuilder()
                            .withName(ENCRYPTION_VOLUME)
                            .withMountPath(ENCRYPTION_DIR)
                            .withReadOnly(true)
                            .build()));
        });
        return out;
    }
}
