package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;

/** The backup a new cluster is made from (spec.restoreFrom). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "has(self.backup) != has(self.backupId)",
        message = "restoreFrom needs exactly one of backup (a DhtBackup's name in this namespace) and backupId (the id"
                + " of a backup in the store, as DhtBackup.status.backupId showed it)",
        reason = "FieldValueInvalid")
public class RestoreFromSpec {
    @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    @JsonPropertyDescription("Name of a Completed DhtBackup in this namespace.")
    public String backup;

    @Pattern("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    @JsonPropertyDescription("Id of a complete backup in spec.backup.storage (DhtBackup.status.backupId; also"
            + " listed by GET /v0/admin/backups on any member): works after the DhtBackup object is gone.")
    public String backupId;
}
