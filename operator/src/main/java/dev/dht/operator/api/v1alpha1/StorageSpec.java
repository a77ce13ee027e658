package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

// A StatefulSet's volumeClaimTemplates cannot change, so neither can these two fields.
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "(has(self.size) ? self.size : '') == (has(oldSelf.size) ? oldSelf.size : '')"
                + " && (has(self.storageClassName) ? self.storageClassName : '')"
                + " == (has(oldSelf.storageClassName) ? oldSelf.storageClassName : '')",
        message = "storage.size and storage.storageClassName cannot change after creation (a StatefulSet's"
                + " volumeClaimTemplates are immutable): keep the old values, or create a new DhtCluster",
        reason = "FieldValueForbidden")
public class StorageSpec {
    @Default(Defaults.STORAGE_SIZE)
    @Size(max = 32)
    @ValidationRule(
            value = ServerSpec.POSITIVE_QUANTITY,
            message = "storage.size must be a positive Kubernetes quantity such as 10Gi or 500Mi")
    @JsonPropertyDescription("Size of each member's PersistentVolumeClaim. Cannot change after creation.")
    public String size;

    @JsonPropertyDescription("StorageClass of the members' volumes. Default: the cluster's default class."
            + " Cannot change after creation.")
    public String storageClassName;

    @Default("true")
    @JsonPropertyDescription("Keep the PersistentVolumeClaims when the DhtCluster is deleted (true) or delete"
            + " them with it (false). Volumes of members removed by scaling down follow retainOnScaleDown.")
    public Boolean retainOnDelete;

    @Default("false")
    @JsonPropertyDescription("Keep the PersistentVolumeClaim of a member removed by a scale-down (true) or delete"
            + " it once the member has handed over its data and its pod is gone (false). A kept volume is reused"
            + " by a later scale-up; the operator then also waits for the leaving member's cleanup.")
    public Boolean retainOnScaleDown;
}
