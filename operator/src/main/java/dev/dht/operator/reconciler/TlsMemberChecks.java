package dev.dht.operator.reconciler;

import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Names;
import dev.dht.operator.nodeadmin.MemberPlane;
import dev.dht.operator.nodeadmin.MemberTlsProbe;
import dev.dht.operator.security.pki.Certificates;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.tls.MemberChecks;
import dev.dht.operator.security.tls.TlsState;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.concurrent.CompletableFuture;

/**
 * What a CA replacement waits for on one port (the member port's mutual TLS, or the client port's): each running
 * member pod is asked over TLS, at once, whether it already uses what the last phase wrote: accepts a client
 * certificate of the current CA, or serves the current certificate.
 */
final class TlsMemberChecks {
    private TlsMemberChecks() {}

    /**
     * @param plane  where each pod's port is reached
     * @param client the certificate the probe presents (issued by the current CA)
     * @return by pod name, in the pods' order; pods being deleted are left out (their successors mount the current
     *     Secret)
     */
    static LinkedHashMap<String, MemberChecks.Result> ask(
            MemberTlsProbe probe,
            MemberPlane plane,
            MemberChecks.Check check,
            TlsState state,
            ClusterModel model,
            Collection<Pod> pods,
            Credential client) {
        var trusted = new ArrayList<>(state.trusted());
        var ca = state.ca().orElseThrow();
        if (!trusted.contains(ca.certificate())) {
            trusted.add(ca.certificate());
        }
        var expected = state.member().orElseThrow().certificate();
        var pending = new LinkedHashMap<String, CompletableFuture<MemberChecks.Result>>();
        for (Pod pod : pods) {
            String podName = pod.getMetadata().getName();
            if (pod.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            if (pod.getStatus() == null || !"Running".equals(pod.getStatus().getPhase())) {
                pending.put(podName, CompletableFuture.completedFuture(new MemberChecks.Result(false, "not running")));
                continue;
            }
            var address = plane.address(model.namespace(), model.name(), podName);
            // the pod's own name (a rack's pods are <cluster>-<rack>-<ordinal>)
            String serverName = URI.create(
                            Names.memberUrl(podName, model.name(), model.namespace(), model.clusterDomain()))
                    .getHost();
            pending.put(
                    podName,
                    probe.probe(address.getKey(), address.getValue(), serverName, client, trusted)
                            .thenApply(r -> switch (check) {
                                case MEMBERS_TRUST_CA ->
                                    new MemberChecks.Result(
                                            r.answered(), r.answered() ? "accepts the new CA" : r.detail());
                                case MEMBERS_SERVE_CERTIFICATE -> {
                                    boolean current =
                                            r.served().map(expected::equals).orElse(false);
                                    yield new MemberChecks.Result(
                                            r.answered() && current,
                                            !r.answered()
                                                    ? r.detail()
                                                    : current
                                                            ? "serves the new certificate"
                                                            : "still serves "
                                                                    + r.served()
                                                                            .map(Certificates::fingerprint)
                                                                            .map(f -> f.substring(0, 12))
                                                                            .orElse("?"));
                                }
                                default -> new MemberChecks.Result(true, "");
                            }));
        }
        var results = new LinkedHashMap<String, MemberChecks.Result>();
        pending.forEach((pod, result) -> results.put(pod, result.join()));
        return results;
    }
}
