package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** Where a cluster's backups go and how fast (spec.backup). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BackupSpec {
    @Required
    @JsonPropertyDescription("The S3-compatible object store every member uploads its part of a backup to, and a"
            + " restore downloads from.")
    public BackupStorageSpec storage;

    @Default(Defaults.BACKUP_UPLOAD_RATE)
    @Size(max = 32)
    @ValidationRule(
            value = ServerSpec.POSITIVE_QUANTITY,
            message = "backup.uploadRate must be a positive quantity of bytes per second such as 4Mi")
    @JsonPropertyDescription("Bytes per second each member uploads at most during a backup (a backup must not"
            + " saturate the network under a live load).")
    public String uploadRate;

    @Size(max = 32)
    @ValidationRule(
            value = ServerSpec.POSITIVE_QUANTITY,
            message = "backup.restoreRate must be a positive quantity of bytes per second such as 64Mi")
    @JsonPropertyDescription("Bytes per second each member downloads at most during a restore. Default: unlimited"
            + " (a restored cluster serves no client until it is done).")
    public String restoreRate;
}
