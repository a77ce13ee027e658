package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReplicationSpec {
  @Min(1)
  @JsonPropertyDescription("Copies of each key (the node's --replication-factor). Default: min(3, replicas);"
      + " must not exceed replicas. A request's default is from=factor, ack=factor/2+1 (a quorum).")
  public Integer factor;
}
