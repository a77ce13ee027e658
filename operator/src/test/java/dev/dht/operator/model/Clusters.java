package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.BackupSpec;
import dev.dht.operator.api.v1alpha1.BackupStorageSpec;
import dev.dht.operator.api.v1alpha1.CredentialsSecretRef;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.RestoreFromSpec;
import dev.dht.operator.api.v1alpha1.SecretKeyRef;
import java.util.function.Consumer;

/** Test clusters: every case starts from the same base cluster and changes one thing. */
public final class Clusters {
    public static final Platform PLATFORM = new Platform("dht-node:test", "cluster.local");

    private Clusters() {}

    public static DhtCluster cluster(Consumer<DhtClusterSpec> change) {
        var cluster = new DhtCluster();
        cluster.getMetadata().setName("kv");
        cluster.getMetadata().setNamespace("prod");
        cluster.getMetadata().setUid("0f1e2d3c-uid");
        cluster.getMetadata().setGeneration(1L);
        var spec = new DhtClusterSpec();
        change.accept(spec);
        cluster.setSpec(spec);
        return cluster;
    }

    public static DesiredState desired(Consumer<DhtClusterSpec> change) {
        var cluster = cluster(change);
        return DesiredState.of(cluster, ClusterModel.from(cluster, PLATFORM), 1);
    }

    /** A cluster backed up to an S3-compatible store (with an encryption key), or also made from a backup. */
    public static Consumer<DhtClusterSpec> backup(boolean encrypted, boolean restore) {
        return spec -> {
            spec.backup = new BackupSpec();
            spec.backup.storage = new BackupStorageSpec();
            spec.backup.storage.endpoint = "http://s3.storage.svc:7070/";
            spec.backup.storage.bucket = "dht-backups";
            spec.backup.storage.prefix = "prod/kv";
            spec.backup.storage.credentialsSecret = new CredentialsSecretRef();
            spec.backup.storage.credentialsSecret.name = "s3-creds";
            if (encrypted) {
                spec.backup.storage.encryptionKeySecret = new SecretKeyRef();
                spec.backup.storage.encryptionKeySecret.name = "backup-key";
            }
            spec.backup.uploadRate = "4Mi";
            if (restore) {
                spec.restoreFrom = new RestoreFromSpec();
                spec.restoreFrom.backupId = "nightly-1234abcd";
            }
        };
    }
}
