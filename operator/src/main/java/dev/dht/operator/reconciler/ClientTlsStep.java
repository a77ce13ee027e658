package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.ClientTlsIssuer;
import dev.dht.operator.api.v1alpha1.ClientTlsStatus;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtUser;
import dev.dht.operator.api.v1alpha1.DhtUserStatus;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.nodeadmin.MemberPlane;
import dev.dht.operator.nodeadmin.MemberTlsProbe;
import dev.dht.operator.security.SecurityModel;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.security.pki.CertificateAuthority;
import dev.dht.operator.security.pki.Certificates;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.tls.CertManagerCertificate;
import dev.dht.operator.security.tls.ClientCredentials;
import dev.dht.operator.security.tls.ClientPortObjects;
import dev.dht.operator.security.tls.MemberChecks;
import dev.dht.operator.security.tls.TlsPlan;
import dev.dht.operator.security.tls.TlsSecrets;
import dev.dht.operator.security.tls.TlsState;
import dev.dht.operator.security.tls.TlsStatuses;
import dev.dht.operator.security.tls.TlsWrites;
import dev.dht.operator.security.users.UserSecrets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client port's certificates in a reconcile (docs/security.md, "Client TLS"): issuer Operator takes one step of
 * the same {@link TlsPlan} as the member port (its checks ask every member's client port; each phase of a CA
 * replacement also waits reloadGrace for clients the operator cannot see), publishes the CA bundle, and keeps the
 * client certificates: the operator's own (admin, for its admin calls), the benchmark Jobs' (read-write) and every
 * DhtUser's. Issuer CertManager asks cert-manager for the same. I/O at the edges; the decisions are pure
 * ({@code security/tls}, {@code security/users}).
 */
final class ClientTlsStep {
    private static final Logger log = LoggerFactory.getLogger(ClientTlsStep.class);
    /** The benchmark Jobs' client certificate: read-write, like the token they send. */
    static final String BENCHMARK_NAME = "dht-benchmark";

    record Outcome(
            ClientTlsStatus status,
            Optional<TlsStatuses.Verdict> certificates,
            Optional<Duration> recheck,
            boolean waiting) {}

    private final KubernetesClient client;
    private final ResourceApplier applier;
    private final Function<String, Optional<Secret>> ownSecrets;
    private final Function<String, Optional<ConfigMap>> ownConfigMaps;
    private final BiFunction<String, String, Optional<Secret>> anySecret;
    private final CertificateAuthority authority;
    private final MemberTlsProbe probe;
    private final MemberPlane clientPlane;

    /**
     * @param anySecret a Secret of the namespace by name, from the informer's cache (a DhtUser's)
     * @param clientPlane where a member's client port is reached
     */
    ClientTlsStep(
            KubernetesClient client,
            ResourceApplier applier,
            Function<String, Optional<Secret>> ownSecrets,
            Function<String, Optional<ConfigMap>> ownConfigMaps,
            BiFunction<String, String, Optional<Secret>> anySecret,
            CertificateAuthority authority,
            MemberTlsProbe probe,
            MemberPlane clientPlane) {
        this.client = client;
        this.applier = applier;
        this.ownSecrets = ownSecrets;
        this.ownConfigMaps = ownConfigMaps;
        this.anySecret = anySecret;
        this.authority = authority;
        this.probe = probe;
        this.clientPlane = clientPlane;
    }

    Outcome run(DhtCluster cluster, ClusterModel model, Collection<Pod> pods, Collection<DhtUser> users, Instant now) {
        var tls = model.security().clientTls();
        if (!tls.enabled()) {
            users.forEach(u -> userStatus(
                    u,
                    Optional.empty(),
                    false,
                    "the client port of DhtCluster " + model.name() + " has no TLS (" + tls.reason() + ")",
                    now));
            return new Outcome(
                    TlsStatuses.clientStatus(
                            tls, TlsState.read(Optional.empty(), Optional.empty()), Optional.empty(), Optional.empty()),
                    Optional.empty(),
                    Optional.empty(),
                    false);
        }
        return tls.issuer() == ClientTlsIssuer.Operator
                ? operator(cluster, model, pods, users, now)
                : certManager(cluster, model, users, now);
    }

    // ---------------------------------------------------------------------------------------------------------
    // issuer Operator

    private Outcome operator(
            DhtCluster cluster, ClusterModel model, Collection<Pod> pods, Collection<DhtUser> users, Instant now) {
        var tls = model.security().clientTls();
        var liveCa = ownSecrets.apply(tls.caSecret());
        var liveLeaf = ownSecrets.apply(tls.secretName());
        var state = TlsState.read(liveCa, liveLeaf);
        var check = TlsPlan.toCheck(state);
        var checks =
                check == MemberChecks.Check.NONE ? MemberChecks.none() : check(check, state, model, pods, users, now);
        var decision = TlsPlan.decide(tls, state, now, checks);
        Optional<String> failure = Optional.empty();
        try {
            var keys = new TlsWrites.Keys() {
                @Override
                public Credential newCa() {
                    return authority.createCa(
                            "dht-client-ca " + model.namespace() + "/" + model.name(), now, tls.caDuration());
                }

                @Override
                public Credential newMember(Credential ca) {
                    return authority.issue(
                            ca,
                            model.name() + " client port",
                            tls.dnsNames(),
                            tls.ipAddresses(),
                            now,
                            tls.certificateDuration());
                }
            };
            var result = TlsWrites.of(cluster, tls, state, decision.step(), keys, now);
            for (Secret secret : result.writes()) {
                applier.apply(secret, secret.getMetadata().getName().equals(tls.caSecret()) ? liveCa : liveLeaf);
            }
            state = result.after();
            if (state.member().isPresent()) {
                applier.apply(
                        ClientPortObjects.caBundle(cluster, tls, state.trusted()),
                        ownConfigMaps.apply(tls.caConfigMap()));
            }
            var signer = ClientCredentials.signer(state);
            keepOwn(
                    cluster,
                    tls,
                    tls.operatorSecret(),
                    CertManagerCertificate.OPERATOR_NAME,
                    "admin",
                    signer,
                    state,
                    now);
            keepOwn(
                    cluster,
                    tls,
                    SecurityNames.benchmarkClientSecret(model.name()),
                    BENCHMARK_NAME,
                    "read-write",
                    signer,
                    state,
                    now);
            for (DhtUser user : users) {
                keepUser(user, tls, signer, state, now);
            }
        } catch (KubernetesClientException e) {
            failure = Optional.of(DhtClusterReconciler.describe(e));
            log.warn(
                    "{}/{}: could not write the client certificates ({}): {}",
                    model.namespace(),
                    model.name(),
                    decision.step(),
                    failure.get());
        }
        if (decision.step() != TlsPlan.Step.NONE && failure.isEmpty()) {
            log.info("{}/{} client port: {}", model.namespace(), model.name(), decision.message());
        }
        boolean busy = decision.waiting() || decision.step() != TlsPlan.Step.NONE;
        return new Outcome(
                TlsStatuses.clientStatus(tls, state, Optional.of(decision), failure),
                Optional.of(TlsStatuses.clientVerdict(tls, state, failure, now)),
                Optional.of(busy ? SecurityStep.ROTATION_POLL : SecurityStep.recheck(tls, state, decision, now)),
                busy);
    }

    /** One of the operator's own client certificates (owned by the cluster), kept current. */
    private void keepOwn(
            DhtCluster cluster,
            SecurityModel.ClientTls tls,
            String secretName,
            String name,
            String scope,
            Optional<Credential> signer,
            TlsState state,
            Instant now) {
        var live = ownSecrets.apply(secretName);
        var held = ClientCredentials.Held.read(live);
        var decision = ClientCredentials.decide(
                held, ClientCredentials.subject(scope, name), signer, state.trusted(), tls.renewBefore(), now);
        var credential = switch (decision.step()) {
            case ISSUE ->
                Optional.of(authority.issueClient(signer.orElseThrow(), name, scope, now, tls.certificateDuration()));
            case BUNDLE -> held.credential();
            default -> Optional.<Credential>empty();
        };
        credential.ifPresent(
                c -> applier.apply(TlsSecrets.credential(cluster, secretName, c, state.trusted(), Map.of()), live));
    }

    /** A DhtUser's Secret kept current, and its status. */
    private void keepUser(
            DhtUser user, SecurityModel.ClientTls tls, Optional<Credential> signer, TlsState state, Instant now) {
        var live = anySecret.apply(user.getMetadata().getNamespace(), UserSecrets.secretName(user));
        var held = ClientCredentials.Held.read(live);
        var decision = ClientCredentials.decide(
                held, UserSecrets.subject(user), signer, state.trusted(), tls.renewBefore(), now);
        var credential = switch (decision.step()) {
            case ISSUE ->
                Optional.of(authority.issueClient(
                        signer.orElseThrow(),
                        user.getMetadata().getName(),
                        user.getSpec().scope,
                        now,
                        tls.certificateDuration()));
            case BUNDLE -> held.credential();
            default -> Optional.<Credential>empty();
        };
        credential.ifPresent(c -> applier.apply(UserSecrets.secret(user, c, state.trusted()), live));
        var now0 = credential.or(held::credential).map(Credential::certificate);
        boolean ready = decision.step() != ClientCredentials.Step.WAIT && now0.isPresent();
        userStatus(user, now0, ready, decision.why(), now);
    }

    private void userStatus(DhtUser user, Optional<X509Certificate> held, boolean ready, String message, Instant now) {
        DhtUserStatus status = UserSecrets.status(user, held, ready, message, now);
        // Not the primary (no JOSDK cache to update): a plain server-side apply of the status, when it changed.
        StatusWrites.statusOnly(user, status, DhtUser::new).ifPresent(fresh -> {
            client.resource(fresh)
                    .subresource("status")
                    .patch(new io.fabric8.kubernetes.client.dsl.base.PatchContext.Builder()
                            .withPatchType(io.fabric8.kubernetes.client.dsl.base.PatchType.SERVER_SIDE_APPLY)
                            .withFieldManager(ResourceApplier.FIELD_MANAGER)
                            .withForce(true)
                            .build());
            applier.counted(fresh);
        });
    }

    /**
     * What a CA replacement waits for on the client port: every member accepts a client certificate of the new CA
     * (phase 1), then serves the new certificate and every client certificate the operator keeps is the new CA's
     * (phase 2).
     */
    private MemberChecks check(
            MemberChecks.Check check,
            TlsState state,
            ClusterModel model,
            Collection<Pod> pods,
            Collection<DhtUser> users,
            Instant now) {
        var tls = model.security().clientTls();
        var ca = state.ca().orElseThrow();
        var probeCredential = authority.issueClient(
                ca, CertManagerCertificate.OPERATOR_NAME, "admin", now, SecurityStep.PROBE_CERTIFICATE);
        var results = TlsMemberChecks.ask(probe, clientPlane, check, state, model, pods, probeCredential);
        if (check == MemberChecks.Check.MEMBERS_SERVE_CERTIFICATE) {
            // the old CA goes only once every client certificate the operator keeps is the new one's
            var own = Map.of(
                    "operator", tls.operatorSecret(), "benchmark", SecurityNames.benchmarkClientSecret(model.name()));
            own.forEach((what, secret) ->
                    results.put(what + " client certificate", reissued(ownSecrets.apply(secret), ca.certificate())));
            for (DhtUser user : users) {
                results.put(
                        "DhtUser " + user.getMetadata().getName(),
                        reissued(
                                anySecret.apply(user.getMetadata().getNamespace(), UserSecrets.secretName(user)),
                                ca.certificate()));
            }
        }
        return new MemberChecks(results);
    }

    private static MemberChecks.Result reissued(Optional<Secret> secret, X509Certificate ca) {
        var held = ClientCredentials.Held.read(secret).credential();
        boolean ok = held.isPresent() && Certificates.signedBy(held.get().certificate(), ca);
        return new MemberChecks.Result(ok, ok ? "re-issued by the new CA" : "not re-issued by the new CA yet");
    }

    // ---------------------------------------------------------------------------------------------------------
    // issuer CertManager

    private Outcome certManager(DhtCluster cluster, ClusterModel model, Collection<DhtUser> users, Instant now) {
        var tls = model.security().clientTls();
        var wanted = new ArrayList<>(List.of(CertManagerCertificate.clientPort(cluster, tls)));
        if (tls.clientCertificates()) {
            wanted.add(CertManagerCertificate.client(
                    cluster, tls, tls.operatorSecret(), CertManagerCertificate.OPERATOR_NAME, "admin"));
            wanted.add(CertManagerCertificate.client(
                    cluster, tls, SecurityNames.benchmarkClientSecret(model.name()), BENCHMARK_NAME, "read-write"));
        }
        Optional<String> failure = Optional.empty();
        for (var certificate : wanted) {
            failure = failure.or(() -> SecurityStep.applyCertificate(client, applier, cluster, certificate));
        }
        var state = TlsState.read(Optional.empty(), ownSecrets.apply(tls.secretName()));
        if (state.member().isPresent()) {
            applier.apply(
                    ClientPortObjects.caBundle(cluster, tls, state.trusted()), ownConfigMaps.apply(tls.caConfigMap()));
        }
        users.forEach(u -> userStatus(
                u,
                Optional.empty(),
                false,
                "DhtCluster " + model.name() + " gets its client-port"
                        + " certificates from cert-manager: issue this client's with a cert-manager Certificate of the same issuer"
                        + " (docs/operations.md, \"Client certificates\")",
                now));
        var verdict = failure.map(f -> new TlsStatuses.Verdict(false, "CertManagerUnavailable", f))
                .orElseGet(() -> TlsStatuses.clientVerdict(tls, state, Optional.empty(), now));
        return new Outcome(
                TlsStatuses.clientStatus(tls, state, Optional.empty(), failure),
                Optional.of(verdict),
                Optional.of(SecurityStep.UNWATCHED_RECHECK),
                false);
    }
}
