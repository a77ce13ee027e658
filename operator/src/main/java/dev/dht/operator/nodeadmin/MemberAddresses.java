package dev.dht.operator.nodeadmin;

import java.util.Map;

/**
 * Where the operator reaches a member's admin API. By default the member's own URL (its stable DNS name through
 * the headless Service, as written in the topology); an override per pod serves an operator running outside the
 * cluster (through port-forwards) and the tests (fake members on loopback).
 */
@FunctionalInterface
public interface MemberAddresses {
    /** @param memberUrl the member's URL in the topology */
    String adminUrl(String namespace, String pod, String memberUrl);

    /**
     * Where the operator sends a privileged admin call (one that changes the member's state: start a backup, a
     * restore): the override if there is one (tests, an operator outside the cluster through its port-forwards), else
     * a port-forward through the API server ({@link PortForwards}), so that the call reaches the node from its own
     * loopback, which is what the node's admin plane requires without an admin token (docs/security.md).
     */
    default String privilegedUrl(String namespace, String pod, String memberUrl) {
        String url = adminUrl(namespace, pod, memberUrl);
        return url.equals(memberUrl) ? PortForwards.url(namespace, pod, memberUrl) : url;
    }

    static MemberAddresses direct() {
        return (namespace, pod, memberUrl) -> memberUrl;
    }

    /** @param byPod {@code <namespace>/<pod>} to base URL; pods not listed are reached directly */
    static MemberAddresses overridden(Map<String, String> byPod) {
        if (byPod.isEmpty()) {
            return direct();
        }
        var copy = Map.copyOf(byPod);
        return (namespace, pod, memberUrl) -> copy.getOrDefault(namespace + "/" + pod, memberUrl);
    }
}
