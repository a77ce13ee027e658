package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.operator.api.v1alpha1.CloudIdentitySpec;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.RestoreFromSpec;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class BackupModelTest {
    @Test
    void theNodesGetTheStoreAsSettingsAndTheSecretsAsFiles() {
        var desired = Clusters.desired(Clusters.backup(true, false));
        var env = desired.config().getData();
        assertThat(env)
                .containsEntry("DHT_BACKUP_ENDPOINT", "http://s3.storage.svc:7070")
                .containsEntry("DHT_BACKUP_BUCKET", "dht-backups")
                .containsEntry("DHT_BACKUP_PREFIX", "prod/kv")
                .containsEntry("DHT_BACKUP_PATH_STYLE", "true")
                .containsEntry("DHT_BACKUP_CREDENTIALS", BackupModel.CREDENTIALS_DIR)
                .containsEntry("DHT_BACKUP_ENCRYPTION_KEY", BackupModel.ENCRYPTION_DIR + "/key")
                .containsEntry("DHT_BACKUP_RATE", Long.toString(4L << 20))
                .doesNotContainKey("DHT_RESTORING");
        var pod = desired.statefulSet().getSpec().getTemplate().getSpec();
        var credentials = pod.getVolumes().stream()
                .filter(v -> v.getName().equals(BackupModel.CREDENTIALS_VOLUME))
                .findFirst()
                .orElseThrow()
                .getSecret();
        assertThat(credentials.getSecretName()).isEqualTo("s3-creds");
        assertThat(credentials.getItems())
                .extracting(i -> i.getKey() + "->" + i.getPath())
                .containsExactly("AWS_ACCESS_KEY_ID->access-key-id", "AWS_SECRET_ACCESS_KEY->secret-access-key");
        assertThat(pod.getContainers().get(0).getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo(BackupModel.ENCRYPTION_DIR);
            assertThat(m.getReadOnly()).isTrue();
        });
    }

    @Test
    void aClusterMadeFromABackupStartsRestoringAndWithoutBackupNothingChanges() {
        assertThat(Clusters.desired(Clusters.backup(false, true)).config().getData())
                .containsEntry("DHT_RESTORING", "true")
                .doesNotContainKey("DHT_BACKUP_ENCRYPTION_KEY");
        var plain = Clusters.desired(s -> {});
        assertThat(plain.config().getData().keySet())
                .noneMatch(k -> k.startsWith("DHT_BACKUP") || k.equals("DHT_RESTORING"));
        assertThat(plain.statefulSet().getSpec().getTemplate().getSpec().getVolumes())
                .noneMatch(v -> v.getName().startsWith("backup"));
        assertThatThrownBy(() -> Clusters.desired(s -> {
                    s.restoreFrom = new RestoreFromSpec();
                    s.restoreFrom.backup = "x";
                }))
                .hasMessageContaining("spec.restoreFrom needs spec.backup.storage");
    }

    @Test
    void aCloudIdentityAnnotatesTheMembersServiceAccountAndMountsNoSecret() {
        Consumer<DhtClusterSpec> irsa = Clusters.backup(false, false).andThen(s -> {
            s.backup.storage.credentialsSecret = null;
            s.backup.storage.cloudIdentity = new CloudIdentitySpec();
            s.backup.storage.cloudIdentity.serviceAccountAnnotations =
                    Map.of("eks.amazonaws.com/role-arn", "arn:aws:iam::111122223333:role/dht-backup");
        });
        var desired = Clusters.desired(irsa);
        assertThat(desired.serviceAccount().getMetadata().getAnnotations())
                .containsEntry("eks.amazonaws.com/role-arn", "arn:aws:iam::111122223333:role/dht-backup");
        assertThat(desired.serviceAccount().getAutomountServiceAccountToken()).isFalse();
        assertThat(desired.config().getData())
                .containsKey("DHT_BACKUP_ENDPOINT")
                .doesNotContainKey("DHT_BACKUP_CREDENTIALS")
                .doesNotContainKey("DHT_BACKUP_REGION");
        var pod = desired.statefulSet().getSpec().getTemplate();
        assertThat(pod.getSpec().getVolumes()).noneMatch(v -> v.getName().equals(BackupModel.CREDENTIALS_VOLUME));
        assertThat(pod.getSpec().getContainers().get(0).getVolumeMounts())
                .noneMatch(m -> m.getMountPath().equals(BackupModel.CREDENTIALS_DIR));
        // another role rolls the pods: the cloud's webhook injects the identity into new pods only
        String hash = pod.getMetadata().getAnnotations().get(Labels.IDENTITY_HASH);
        assertThat(hash).isNotBlank();
        var other = Clusters.desired(irsa.andThen(s -> s.backup.storage.cloudIdentity.serviceAccountAnnotations =
                Map.of("eks.amazonaws.com/role-arn", "arn:aws:iam::111122223333:role/other")));
        assertThat(other.statefulSet()
                        .getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getAnnotations()
                        .get(Labels.IDENTITY_HASH))
                .isNotEqualTo(hash);

        // EKS Pod Identity: no annotation at all, the association names the ServiceAccount
        var podIdentity = Clusters.desired(irsa.andThen(s -> s.backup.storage.cloudIdentity = new CloudIdentitySpec()));
        assertThat(podIdentity.serviceAccount().getMetadata().getAnnotations())
                .doesNotContainKey("eks.amazonaws.com/role-arn");
        assertThat(podIdentity.config().getData()).doesNotContainKey("DHT_BACKUP_CREDENTIALS");
        assertThat(Clusters.desired(Clusters.backup(false, false))
                        .serviceAccount()
                        .getMetadata()
                        .getAnnotations())
                .as("static keys: no identity annotation")
                .doesNotContainKey("eks.amazonaws.com/role-arn");
    }

    @Test
    void theStoreNeedsEitherASecretOrACloudIdentityAndARegionOnlyWhenGiven() {
        assertThatThrownBy(() -> Clusters.desired(Clusters.backup(false, false)
                        .andThen(s -> s.backup.storage.cloudIdentity = new CloudIdentitySpec())))
                .hasMessageContaining("one of credentialsSecret (static keys) or cloudIdentity");
        assertThatThrownBy(() -> Clusters.desired(
                        Clusters.backup(false, false).andThen(s -> s.backup.storage.credentialsSecret = null)))
                .hasMessageContaining("one of credentialsSecret (static keys) or cloudIdentity");
        assertThat(Clusters.desired(Clusters.backup(false, false).andThen(s -> s.backup.storage.region = "eu-west-1"))
                        .config()
                        .getData())
                .containsEntry("DHT_BACKUP_REGION", "eu-west-1");
    }
}
