package dev.dht.operator.benchmark.model;

import dev.dht.operator.api.v1alpha1.ClientAuthMode;
import dev.dht.operator.api.v1alpha1.Defaults;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.MemberStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.ProfilerEvent;
import dev.dht.operator.api.v1alpha1.TargetMode;
import dev.dht.operator.model.Names;
import dev.dht.operator.model.ProfilerSidecar;
import dev.dht.operator.security.SecurityModel;
import dev.dht.operator.security.SecurityNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a run loads and profiles, read from the target DhtCluster as it is when the run starts: the URLs the load
 * goes to, and each member's profiler sidecar with the events to capture.
 *
 * @param profilers member pod name to its sidecar's base URL, by ordinal; empty when nothing is captured
 * @param note what the run will not do and why (no profiler), for status.message; empty when nothing is missing
 * @param credentials the cluster's credentials Secret when its client tokens are on: the Job reads its tokens there
 * @param clientTls the client port's TLS as the Job needs it, when the members serve it
 */
public record BenchmarkTarget(
        List<String> loadUrls,
        Map<String, String> profilers,
        List<ProfilerEvent> events,
        Optional<String> note,
        Optional<String> credentials,
        Optional<ClientTls> clientTls) {

    /**
     * @param caConfigMap the CA bundle the Job trusts for the members (and their profiler sidecars)
     * @param certificateSecret the benchmark client certificate (read-write) when the members ask for certificates
     */
    public record ClientTls(String caConfigMap, Optional<String> certificateSecret) {}

    public BenchmarkTarget(
            List<String> loadUrls, Map<String, String> profilers, List<ProfilerEvent> events, Optional<String> note) {
        this(loadUrls, profilers, events, note, Optional.empty(), Optional.empty());
    }

    /**
     * The target of a run, or why a run cannot start yet.
     *
     * @throws dev.dht.operator.model.InvalidSpecException when the captures do not fit in a tape
     */
    public static Readiness of(BenchmarkModel model, Optional<DhtCluster> found, String clusterDomain) {
        if (found.isEmpty()) {
            return Readiness.waiting("DhtCluster " + model.cluster() + " does not exist in namespace "
                    + model.namespace() + ": create it, or set spec.cluster to an existing one");
        }
        var cluster = found.get();
        var status = cluster.getStatus();
        if (status == null
                || status.phase != Phase.Ready
                || status.members == null
                || status.members.isEmpty()
                || !java.util.Objects.equals(
                        status.observedGeneration, cluster.getMetadata().getGeneration())) {
            String phase = status == null || status.phase == null ? "not reconciled yet" : status.phase.name();
            return Readiness.waiting(
                    "DhtCluster " + model.cluster() + " is " + phase + ": a run starts when it is Ready");
        }
        String ns = model.namespace();
        var spec = cluster.getSpec();
        var clientTls = clientTls(cluster);
        String scheme = clientTls.isPresent() ? "https://" : "http://";
        List<String> urls;
        if (model.target() == TargetMode.SERVICE) {
            int port = spec != null && spec.service != null && spec.service.port != null
                    ? spec.service.port
                    : Defaults.SERVICE_PORT;
            urls = List.of(
                    scheme + Names.clientService(model.cluster()) + "." + ns + ".svc." + clusterDomain + ":" + port);
        } else {
            urls = status.members.stream()
                    .map(m -> m.url.replaceFirst("^http://", scheme))
                    .toList();
        }
        boolean profilerEnabled = spec != null && spec.profiler != null && Boolean.TRUE.equals(spec.profiler.enabled);
        List<ProfilerEvent> events = model.profilerEvents()
                .orElseGet(() -> spec != null && spec.profiler != null && spec.profiler.events != null
                        ? List.copyOf(spec.profiler.events)
                        : List.of(ProfilerEvent.cpu));
        if (!profilerEnabled || events.isEmpty()) {
            String why = profilerEnabled
                    ? "spec.profiler.events is empty"
                    : "DhtCluster " + model.cluster()
                            + " has spec.profiler.enabled false (set it to true to get flamegraphs)";
            return Readiness.ready(new BenchmarkTarget(
                    urls,
                    Map.of(),
                    List.of(),
                    Optional.of("no flamegraphs: " + why),
                    SecurityModel.credentialsSecret(cluster),
                    clientTls));
        }
        model.checkCapturesFit(events);
        var profilers = new LinkedHashMap<String, String>();
        for (MemberStatus member : status.members) {
            profilers.put(member.name, sidecarUrl(scheme, member.name, model.cluster(), ns, clusterDomain));
        }
        return Readiness.ready(new BenchmarkTarget(
                urls, profilers, events, Optional.empty(), SecurityModel.credentialsSecret(cluster), clientTls));
    }

    /** With client TLS the sidecars serve TLS too, with the members' client-port certificate. */
    static String sidecarUrl(String scheme, String pod, String cluster, String namespace, String clusterDomain) {
        return scheme + Names.memberHost(pod, cluster, namespace, clusterDomain) + ":" + ProfilerSidecar.PORT;
    }

    /** The client port's TLS as its status says the members serve it (an unset spec differs for old clusters). */
    static Optional<ClientTls> clientTls(DhtCluster cluster) {
        var status = cluster.getStatus();
        var client = status == null || status.tls == null ? null : status.tls.client;
        if (client == null || !Boolean.TRUE.equals(client.enabled)) {
            return Optional.empty();
        }
        String name = cluster.getMetadata().getName();
        boolean certificates = client.clientAuth != null && client.clientAuth != ClientAuthMode.None;
        return Optional.of(new ClientTls(
                SecurityNames.clientCaConfigMap(name),
                certificates ? Optional.of(SecurityNames.benchmarkClientSecret(name)) : Optional.empty()));
    }

    /** A target, or the reason a run must wait for the cluster. */
    public record Readiness(Optional<BenchmarkTarget> target, String waitingFor) {
        static Readiness ready(BenchmarkTarget target) {
            return new Readiness(Optional.of(target), null);
        }

        static Readiness waiting(String why) {
            return new Readiness(Optional.empty(), why);
        }
    }
}
