package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtUser;
import dev.dht.operator.api.v1alpha1.TlsMode;
import dev.dht.operator.api.v1alpha1.TlsStatus;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Platform;
import dev.dht.operator.nodeadmin.MemberPlane;
import dev.dht.operator.nodeadmin.MemberTlsProbe;
import dev.dht.operator.security.CertificateSet;
import dev.dht.operator.security.SecretData;
import dev.dht.operator.security.SecurityModel;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.security.auth.AuthSecrets;
import dev.dht.operator.security.auth.AuthStatuses;
import dev.dht.operator.security.auth.Tokens;
import dev.dht.operator.security.network.ClusterNetworkPolicy;
import dev.dht.operator.security.pki.CertificateAuthority;
import dev.dht.operator.security.pki.Certificates;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.tls.CertManagerCertificate;
import dev.dht.operator.security.tls.MemberChecks;
import dev.dht.operator.security.tls.TlsPlan;
import dev.dht.operator.security.tls.TlsState;
import dev.dht.operator.security.tls.TlsStatuses;
import dev.dht.operator.security.tls.TlsWrites;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The security part of a reconcile, before the StatefulSet: the NetworkPolicy, the member plane's certificates
 * (mode Operator: one step of {@link TlsPlan}; CertManager: the Certificate; Secret: read the user's), the client
 * port's ({@link ClientTlsStep}) and the client tokens. The builders are pure ({@code security/}); this class reads
 * the live Secrets, makes keys, asks the members during a CA replacement and writes. Like the rest of the reconcile it writes only what differs.
 */
final class SecurityStep {
    private static final Logger log = LoggerFactory.getLogger(SecurityStep.class);
    /** The least time to the next look when nothing is due sooner. */
    static final Duration ROTATION_POLL = Duration.ofSeconds(10);
    /** How often a Secret the operator does not watch (the user's, cert-manager's) is read again. */
    static final Duration UNWATCHED_RECHECK = Duration.ofMinutes(5);

    static final Duration MAX_RECHECK = Duration.ofHours(1);
    static final Duration PROBE_CERTIFICATE = Duration.ofHours(1);

    /**
     * @param certificates the condition CertificatesValid (absent with TLS off)
     * @param clientCertificates the condition ClientCertificatesValid (absent with client TLS off)
     * @param credentials the condition CredentialsReady (absent with authentication off)
     * @param recheckIn reconcile again within this, even without an event
     * @param waiting a CA replacement waits for the members: look again soon (the scaling poll interval)
     */
    record Outcome(
            TlsStatus tls,
            Optional<TlsStatuses.Verdict> certificates,
            Optional<TlsStatuses.Verdict> clientCertificates,
            Optional<AuthStatuses.Verdict> credentials,
            Optional<Duration> recheckIn,
            boolean waiting) {}

    private final KubernetesClient client;
    private final ResourceApplier applier;
    private final Function<String, Optional<Secret>> ownSecrets;
    private final Optional<NetworkPolicy> livePolicy;
    private final CertificateAuthority authority;
    private final SecureRandom random;
    private final MemberTlsProbe probe;
    private final MemberPlane plane;
    private final ClientTlsStep clientTls;

    /**
     * @param ownSecrets the operator's own Secrets by name, from the informer cache
     * @param ownConfigMaps the operator's own ConfigMaps by name, from the informer cache
     * @param anySecret a Secret by namespace and name, from the informer cache (a DhtUser's)
     * @param livePolicy the cluster's NetworkPolicy, from the informer cache
     * @param plane where a member's member port is reached; clientPlane: its client port
     */
    SecurityStep(
            KubernetesClient client,
            ResourceApplier applier,
            Function<String, Optional<Secret>> ownSecrets,
            Function<String, Optional<ConfigMap>> ownConfigMaps,
            BiFunction<String, String, Optional<Secret>> anySecret,
            Optional<NetworkPolicy> livePolicy,
            SecureRandom random,
            MemberTlsProbe probe,
            MemberPlane plane,
            MemberPlane clientPlane) {
        this.client = client;
        this.applier = applier;
        this.ownSecrets = ownSecrets;
        this.livePolicy = livePolicy;
        this.authority = new CertificateAuthority(random);
        this.random = random;
        this.probe = probe;
        this.plane = plane;
        this.clientTls =
                new ClientTlsStep(client, applier, ownSecrets, ownConfigMaps, anySecret, authority, probe, clientPlane);
    }

    Outcome run(
            DhtCluster cluster,
            ClusterModel model,
            Platform platform,
            Collection<Pod> pods,
            Collection<DhtUser> users,
            Instant now) {
        var security = model.security();
        networkPolicy(cluster, model, platform);
        var recheck = new ArrayList<Duration>();
        TlsStatus tlsStatus;
        boolean waiting = false;
        Optional<TlsStatuses.Verdict> certificates = Optional.empty();
        switch (security.tls().mode()) {
            case Operator -> {
                var r = operatorTls(cluster, model, pods, now);
                tlsStatus = r.status;
                certificates = Optional.of(r.verdict);
                recheck.add(r.recheck);
                waiting = r.waiting;
            }
            case Secret, CertManager -> {
                Optional<String> failure = Optional.empty();
                if (security.tls().mode() == TlsMode.CertManager) {
                    failure = certManager(cluster, security.tls());
                }
                var state = TlsState.read(
                        Optional.empty(), readSecret(cluster, security.tls().secretName()));
                tlsStatus = TlsStatuses.status(security.tls(), state, Optional.empty(), failure);
                var verdict = failure.map(f -> new TlsStatuses.Verdict(false, "CertManagerUnavailable", f))
                        .orElseGet(() -> TlsStatuses.verdict(security.tls(), state, Optional.empty(), now));
                certificates = Optional.of(verdict);
                recheck.add(UNWATCHED_RECHECK);
            }
            default ->
                tlsStatus = TlsStatuses.status(
                        security.tls(),
                        TlsState.read(Optional.empty(), Optional.empty()),
                        Optional.empty(),
                        Optional.empty());
        }
        var client = clientTls.run(cluster, model, pods, users, now);
        tlsStatus.client = client.status();
        client.recheck().ifPresent(recheck::add);
        Optional<AuthStatuses.Verdict> credentials = Optional.empty();
        if (security.auth().enabled()) {
            credentials = Optional.of(auth(cluster, security.auth()));
            if (!security.auth().createCredentials()) {
                recheck.add(UNWATCHED_RECHECK);
            }
        }
        return new Outcome(
                tlsStatus,
                certificates,
                client.certificates(),
                credentials,
                recheck.stream().min(Duration::compareTo),
                waiting || client.waiting());
    }

    // ---------------------------------------------------------------------------------------------------------
    // NetworkPolicy

    private void networkPolicy(DhtCluster cluster, ClusterModel model, Platform platform) {
        if (model.security().network().policies()) {
            applier.apply(ClusterNetworkPolicy.networkPolicy(cluster, model, platform.operator()), livePolicy);
        } else if (livePolicy.isPresent()) {
            // Switched off: the garbage collector would only remove it with the cluster.
            client.resource(livePolicy.get()).delete();
            log.info(
                    "deleted NetworkPolicy {} (spec.network.policies is false)",
                    livePolicy.get().getMetadata().getName());
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // TLS, mode Operator

    private record TlsResult(TlsStatus status, TlsStatuses.Verdict verdict, Duration recheck, boolean waiting) {}

    private TlsResult operatorTls(DhtCluster cluster, ClusterModel model, Collection<Pod> pods, Instant now) {
        var tls = model.security().tls();
        String name = model.name();
        var liveCa = ownSecrets.apply(SecurityNames.caSecret(name));
        var liveMember = ownSecrets.apply(SecurityNames.memberTlsSecret(name));
        var state = TlsState.read(liveCa, liveMember);
        var check = TlsPlan.toCheck(state);
        var checks = check == MemberChecks.Check.NONE ? MemberChecks.none() : check(check, state, model, pods, now);
        var decision = TlsPlan.decide(tls, state, now, checks);
        Optional<String> failure = Optional.empty();
        try {
            state = execute(cluster, model, state, decision, now, liveCa, liveMember);
        } catch (KubernetesClientException e) {
            failure = Optional.of(DhtClusterReconciler.describe(e));
            log.warn(
                    "{}/{}: could not write the certificates ({}): {}",
                    model.namespace(),
                    name,
                    decision.step(),
                    failure.get());
        }
        if (decision.step() != TlsPlan.Step.NONE && failure.isEmpty()) {
            log.info("{}/{}: {}", model.namespace(), name, decision.message());
        }
        var status = TlsStatuses.status(tls, state, Optional.of(decision), failure);
        var verdict = TlsStatuses.verdict(tls, state, failure, now);
        return new TlsResult(
                status,
                verdict,
                recheck(tls, state, decision, now),
                decision.waiting() || decision.step() != TlsPlan.Step.NONE);
    }

    /** Writes the decided step; returns the state the Secrets hold afterwards. */
    private TlsState execute(
            DhtCluster cluster,
            ClusterModel model,
            TlsState state,
            TlsPlan.Decision decision,
            Instant now,
            Optional<Secret> liveCa,
            Optional<Secret> liveMember) {
        var tls = model.security().tls();
        var keys = new TlsWrites.Keys() {
            @Override
            public Credential newCa() {
                return authority.createCa("dht-ca " + model.namespace() + "/" + model.name(), now, tls.caDuration());
            }

            @Override
            public Credential newMember(Credential ca) {
                return authority.issue(
                        ca, model.name() + " member", List.of(tls.memberDnsName()), now, tls.certificateDuration());
            }
        };
        var result = TlsWrites.of(cluster, tls, state, decision.step(), keys, now);
        for (Secret secret : result.writes()) {
            boolean isCa = secret.getMetadata().getName().equals(SecurityNames.caSecret(model.name()));
            applier.apply(secret, isCa ? liveCa : liveMember);
        }
        return result.after();
    }

    /**
     * Asks every member pod, over mutual TLS on its member port, whether it already uses what the last phase wrote:
     * accepts a client certificate of the current CA, or serves the current member certificate.
     */
    private MemberChecks check(
            MemberChecks.Check check, TlsState state, ClusterModel model, Collection<Pod> pods, Instant now) {
        var client = authority.issue(
                state.ca().orElseThrow(), "dht-operator", List.of("dht-operator"), now, PROBE_CERTIFICATE);
        return new MemberChecks(TlsMemberChecks.ask(probe, plane, check, state, model, pods, client));
    }

    /** When to look again: soon while a replacement waits, else when the next renewal or replacement is due. */
    static Duration recheck(CertificateSet tls, TlsState state, TlsPlan.Decision decision, Instant now) {
        if (decision.waiting() || decision.step() != TlsPlan.Step.NONE) {
            return ROTATION_POLL;
        }
        var due = new ArrayList<Duration>();
        due.add(MAX_RECHECK);
        state.member()
                .ifPresent(m -> due.add(Duration.between(
                        now, Certificates.notAfter(m.certificate()).minus(tls.renewBefore()))));
        state.ca()
                .ifPresent(ca -> due.add(Duration.between(
                        now, Certificates.notAfter(ca.certificate()).minus(tls.caRenewBefore()))));
        var next = due.stream().min(Duration::compareTo).orElse(MAX_RECHECK);
        return next.compareTo(ROTATION_POLL) < 0 ? ROTATION_POLL : next;
    }

    // ---------------------------------------------------------------------------------------------------------
    // TLS, modes Secret and CertManager

    /** Where cert-manager's Certificate lives, so that the client needs no discovery (it fails while cert-manager is absent). */
    static final ResourceDefinitionContext CERT_MANAGER = new ResourceDefinitionContext.Builder()
            .withGroup(CertManagerCertificate.GROUP)
            .withVersion(CertManagerCertificate.VERSION)
            .withKind(CertManagerCertificate.KIND)
            .withPlural(CertManagerCertificate.PLURAL)
            .withNamespaced(true)
            .build();

    /** Applies the cert-manager Certificate; the reason it could not, if it could not (cert-manager is optional). */
    private Optional<String> certManager(DhtCluster cluster, SecurityModel.Tls tls) {
        return applyCertificate(client, applier, cluster, CertManagerCertificate.certificate(cluster, tls));
    }

    /** Applies a cert-manager Certificate if it changed; the reason it could not, if it could not. */
    static Optional<String> applyCertificate(
            KubernetesClient client, ResourceApplier applier, DhtCluster cluster, GenericKubernetesResource desired) {
        var resources = client.genericKubernetesResources(CERT_MANAGER)
                .inNamespace(cluster.getMetadata().getNamespace());
        String name = desired.getMetadata().getName();
        try {
            GenericKubernetesResource live = resources.withName(name).get();
            if (live == null || !ResourceApplier.upToDate(live, desired)) {
                resources
                        .resource(desired)
                        .fieldManager(ResourceApplier.FIELD_MANAGER)
                        .forceConflicts()
                        .serverSideApply();
                applier.counted(desired);
            }
            return Optional.empty();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return Optional.of("cert-manager is not installed (no " + CertManagerCertificate.CRD
                        + " in this cluster):" + " install it, or let the operator issue the certificates");
            }
            return Optional.of(
                    "the Certificate " + name + " could not be written: " + DhtClusterReconciler.describe(e));
        }
    }

    /** A Secret by name: the informer's copy if it is one of the operator's, else read from the API server. */
    private Optional<Secret> readSecret(DhtCluster cluster, String name) {
        var own = ownSecrets.apply(name);
        if (own.isPresent()) {
            return own;
        }
        return Optional.ofNullable(client.secrets()
                .inNamespace(cluster.getMetadata().getNamespace())
                .withName(name)
                .get());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Client tokens

    /** Creates the default credentials once, renders the tokens file (the operator's token kept), judges them. */
    private AuthStatuses.Verdict auth(DhtCluster cluster, SecurityModel.Auth auth) {
        var credentialsSecret = readSecret(cluster, auth.credentialsSecret());
        if (credentialsSecret.isEmpty() && auth.createCredentials()) {
            var tokens = new LinkedHashMap<String, String>();
            for (String scope : Tokens.SCOPES) {
                tokens.put(scope, Tokens.generate(random));
            }
            // Created once; never applied again, so that users can rotate tokens in it.
            credentialsSecret =
                    Optional.of(applier.apply(AuthSecrets.credentials(cluster, auth, tokens), Optional.empty()));
        }
        var credentials = credentialsSecret.map(s -> Tokens.read(SecretData.texts(s)));
        var liveTokens = ownSecrets.apply(auth.tokensSecret());
        String operatorToken = liveTokens
                .flatMap(AuthSecrets::operatorToken)
                .filter(t -> t.length() >= Tokens.MIN_LENGTH)
                .orElseGet(() -> Tokens.generate(random));
        applier.apply(
                AuthSecrets.tokens(
                        cluster, auth, credentials.orElse(new Tokens.Credentials(List.of(), Map.of())), operatorToken),
                liveTokens);
        return AuthStatuses.verdict(auth, credentials);
    }
}
