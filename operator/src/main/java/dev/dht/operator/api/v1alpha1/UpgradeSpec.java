package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/** How the operator upgrades a cluster (docs/upgrading.md). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpgradeSpec {
    @JsonPropertyDescription("Keep the feature level where it is after a roll to a new release (true), so that the"
            + " cluster can still be rolled back to the previous release; remove it (or set spec.featureLevel) to raise"
            + " the level. Ignored when spec.featureLevel is set. Default: false (raised automatically once every member"
            + " runs the new release and the cluster is Ready).")
    public Boolean holdFeatureLevel;

    @Min(0)
    @JsonPropertyDescription("Roll a new node version (or any pod template change) to at most this many members, then"
            + " wait: the others keep the old one until it is raised or removed (condition Rolled, reason Canary). The"
            + " members roll in the usual order (rack by rack, highest ordinal first). Unset: every member.")
    public Integer canary;
}
