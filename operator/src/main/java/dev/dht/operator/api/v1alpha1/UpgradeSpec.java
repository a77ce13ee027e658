package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** How the operator upgrades a cluster (docs/upgrading.md). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpgradeSpec {
  @JsonPropertyDescription("Keep the feature level where it is after a roll to a new release (true), so that the"
      + " cluster can still be rolled back to the previous release; remove it (or set spec.featureLevel) to raise"
      + " the level. Ignored when spec.featureLevel is set. Default: false (raised automatically once every member"
      + " runs the new release and the cluster is Ready).")
  public Boolean holdFeatureLevel;
}
