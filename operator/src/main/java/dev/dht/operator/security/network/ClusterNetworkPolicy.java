package dev.dht.operator.security.network;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.benchmark.model.BenchmarkNames;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Hashing;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Names;
import dev.dht.operator.model.NodeSecurity;
import dev.dht.operator.model.Owners;
import dev.dht.operator.model.Platform;
import dev.dht.operator.model.ProfilerSidecar;
import dev.dht.operator.security.SecurityNames;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The NetworkPolicy of a cluster's members: ingress only, one rule per port.
 *
 * <ul>
 *   <li>member port (client port + {@value SecurityNames#MEMBER_PORT_OFFSET}): the cluster's own members, and the
 *       operator (it checks with a TLS handshake which certificate each member uses during a CA replacement);
 *   <li>client port: {@code spec.network.clientPeers} (none listed: everyone) and the operator (it polls the
 *       members' movement while the cluster scales); with client TLS the plaintext metrics port too (Prometheus);
 *   <li>the profiler sidecar's port, when there is one: DhtBenchmark runners of the namespace only.
 * </ul>
 *
 * Anything else is refused where a network plugin enforces NetworkPolicies. Traffic from the pods' own host is not
 * (kubelet probes; hostNetwork pods): mutual TLS still guards the member port against it. Pure.
 */
public final class ClusterNetworkPolicy {
    /** The namespace label every namespace has (Kubernetes 1.21+), to name the operator's namespace in a peer. */
    static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

    private ClusterNetworkPolicy() {}

    public static NetworkPolicy networkPolicy(
            DhtCluster cluster, ClusterModel model, Optional<Platform.OperatorPeer> operator) {
        String name = model.name();
        var rules = new ArrayList<NetworkPolicyIngressRule>();
        var members = new ArrayList<NetworkPolicyPeer>();
        members.add(new NetworkPolicyPeerBuilder()
                .withPodSelector(new LabelSelectorBuilder()
                        .withMatchLabels(Labels.selector(name))
                        .build())
                .build());
        operator.map(ClusterNetworkPolicy::peer).ifPresent(members::add);
        rules.add(rule(NodeSecurity.MEMBER_PORT, members));

        var clients = new ArrayList<>(model.security().network().clientPeers());
        if (!clients.isEmpty()) {
            operator.map(ClusterNetworkPolicy::peer).ifPresent(clients::add);
        }
        rules.add(rule(Names.NODE_PORT, clients)); // no peer listed: from everywhere
        if (model.security().clientTls().enabled()) {
            // The metrics port (counters and status, no key nor value) is open to whoever may reach the client port.
            rules.add(rule(SecurityNames.METRICS_PORT, clients));
        }

        if (model.profilerEnabled()) {
            rules.add(rule(
                    ProfilerSidecar.PORT,
                    List.of(new NetworkPolicyPeerBuilder()
                            .withPodSelector(new LabelSelectorBuilder()
                                    .withMatchLabels(Map.of(Labels.COMPONENT, BenchmarkNames.COMPONENT_BENCHMARK))
                                    .addNewMatchExpression()
                                    .withKey(BenchmarkNames.BENCHMARK_LABEL)
                                    .withOperator("Exists")
                                    .endMatchExpression()
                                    .build())
                            .build())));
        }
        return Hashing.stamp(new NetworkPolicyBuilder()
                .withMetadata(Owners.metadata(cluster, SecurityNames.networkPolicy(name)))
                .withNewSpec()
                .withNewPodSelector()
                .withMatchLabels(Labels.selector(name))
                .endPodSelector()
                .withPolicyTypes("Ingress")
                .withIngress(rules)
                .endSpec()
                .build());
    }

    static NetworkPolicyPeer peer(Platform.OperatorPeer operator) {
        return new NetworkPolicyPeerBuilder()
                .withNewNamespaceSelector()
                .withMatchLabels(Map.of(NAMESPACE_NAME_LABEL, operator.namespace()))
                .endNamespaceSelector()
                .withNewPodSelector()
                .withMatchLabels(operator.podLabels())
                .endPodSelector()
                .build();
    }

    private static NetworkPolicyIngressRule rule(int port, List<NetworkPolicyPeer> from) {
        var rule = new NetworkPolicyIngressRuleBuilder()
                .addNewPort()
                .withProtocol("TCP")
                .withPort(new IntOrString(port))
                .endPort();
        if (!from.isEmpty()) {
            rule.withFrom(from);
        }
        return rule.build();
    }
}
