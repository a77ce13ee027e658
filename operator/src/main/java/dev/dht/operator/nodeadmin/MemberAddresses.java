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
