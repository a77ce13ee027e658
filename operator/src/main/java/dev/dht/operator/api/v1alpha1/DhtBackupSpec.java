package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** What to back up. Cannot change once the backup exists. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "self == oldSelf",
        message = "a DhtBackup's spec cannot change: create another DhtBackup",
        reason = "FieldValueForbidden")
public class DhtBackupSpec {
    @Required
    @JsonPropertyDescription("Name of the DhtCluster (same namespace) to back up; it needs spec.backup.storage.")
    public String cluster;
}
