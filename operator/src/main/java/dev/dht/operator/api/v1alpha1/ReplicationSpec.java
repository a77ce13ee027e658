package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReplicationSpec {
    @Min(1)
    @JsonPropertyDescription("Copies of each key (the node's --replication-factor). Default: 3, which the nodes"
            + " cap at the member count (min(3, replicas) copies); a set factor must not exceed replicas. A request's"
            + " default is from=factor, ack=factor/2+1 (a quorum). A change is held back while the cluster scales.")
    public Integer factor;
}
