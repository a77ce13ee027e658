package dev.dht.operator.nodeadmin;

import java.util.Map;

/** Where a member's member port is reached (host and port), by namespace, cluster and pod. */
@FunctionalInterface
public interface MemberPlane {
    Map.Entry<String, Integer> address(String namespace, String cluster, String pod);
}
