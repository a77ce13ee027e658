package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.util.List;

/** Who may reach the members' ports: a NetworkPolicy per cluster. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NetworkSpec {
    @Default("true")
    @JsonPropertyDescription("Generate the NetworkPolicy <name>: the member port only from the cluster's own members"
            + " and the operator, the client port from clientPeers and the operator, the profiler sidecar's port only from"
            + " DhtBenchmark runners. Needs a network plugin that enforces NetworkPolicies. false: no policy.")
    public Boolean policies;

    @JsonPropertyDescription("Who may reach the client port (8080: the API, /metrics). Empty or unset: everyone."
            + " The operator is always allowed.")
    public List<NetworkPolicyPeer> clientPeers;
}
