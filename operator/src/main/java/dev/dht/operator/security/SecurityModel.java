package dev.dht.operator.security;

import dev.dht.operator.api.v1alpha1.AuthSpec;
import dev.dht.operator.api.v1alpha1.ClientAuthMode;
import dev.dht.operator.api.v1alpha1.ClientTlsIssuer;
import dev.dht.operator.api.v1alpha1.ClientTlsSpec;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.IssuerRef;
import dev.dht.operator.api.v1alpha1.NetworkSpec;
import dev.dht.operator.api.v1alpha1.SpecDuration;
import dev.dht.operator.api.v1alpha1.TlsMode;
import dev.dht.operator.api.v1alpha1.TlsSpec;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A cluster's security settings with every default applied and checked: TLS between the members, TLS on the client
 * port, tokens on the client API, NetworkPolicies. Secure by default: a new cluster's spec without any of them gets
 * all four.
 */
public record SecurityModel(Tls tls, ClientTls clientTls, Auth auth, Network network) {

    /**
     * @param secretName the Secret the members mount (mode Secret: the user's)
     * @param caSecret the CA's Secret (mode Operator)
     * @param memberDnsName the name the member certificate must cover (a wildcard over the headless Service)
     * @param renewRequest the value of the {@value SecurityNames#RENEW_CERTIFICATE} annotation ("" if none)
     * @param replaceCaRequest the value of the {@value SecurityNames#REPLACE_CA} annotation ("" if none)
     */
    public record Tls(
            TlsMode mode,
            String secretName,
            String caSecret,
            Optional<IssuerRef> issuer,
            Duration certificateDuration,
            Duration renewBefore,
            Duration caDuration,
            Duration caRenewBefore,
            String memberDnsName,
            String renewRequest,
            String replaceCaRequest)
            implements CertificateSet {
        public boolean enabled() {
            return mode != TlsMode.Disabled;
        }

        @Override
        public List<String> dnsNames() {
            return List.of(memberDnsName);
        }

        @Override
        public List<String> ipAddresses() {
            return List.of();
        }

        @Override
        public Duration phaseGrace() {
            return Duration.ZERO; // the operator sees every member use each phase; nobody else holds these
        }

        @Override
        public String owner() {
            return "the members'";
        }
    }

    /**
     * TLS on the client port (docs/security.md, "Client TLS").
     *
     * @param enabled whether the members serve TLS only on the client port
     * @param reason why it is on or off (the status says it)
     * @param secretName the Secret the members mount at {@value SecurityNames#CLIENT_TLS_DIR}
     * @param caSecret the client CA (issuer Operator)
     * @param caConfigMap the CA bundle clients mount (ca.crt)
     * @param operatorSecret the operator's own admin client certificate (its admin calls), never mounted
     * @param dnsNames the client Service's names, then every member's (wildcards over the headless Service), then
     *     localhost (port-forwards, the profiler sidecar)
     * @param reloadGrace how long clients may take to load a new CA bundle or certificate: each phase of a client CA
     *     replacement lasts at least this
     */
    public record ClientTls(
            boolean enabled,
            String reason,
            ClientTlsIssuer issuer,
            Optional<IssuerRef> issuerRef,
            ClientAuthMode clientAuth,
            String secretName,
            String caSecret,
            String caConfigMap,
            String operatorSecret,
            List<String> dnsNames,
            Duration certificateDuration,
            Duration renewBefore,
            Duration caDuration,
            Duration caRenewBefore,
            String renewRequest,
            String replaceCaRequest,
            Duration reloadGrace)
            implements CertificateSet {
        /** What the certificate names beside its DNS names: loopback, for calls from inside the pod. */
        public static final List<String> IP_ADDRESSES = List.of("127.0.0.1");

        @Override
        public List<String> ipAddresses() {
            return IP_ADDRESSES;
        }

        @Override
        public Duration phaseGrace() {
            return reloadGrace;
        }

        @Override
        public String owner() {
            return "the client port's";
        }

        /** Whether clients present certificates (then the nodes get the CA bundle as --client-tls-ca). */
        public boolean clientCertificates() {
            return enabled && clientAuth != ClientAuthMode.None;
        }
    }

    /**
     * @param credentialsSecret the Secret with one key per token (the user's, or the default the operator creates)
     * @param createCredentials whether the operator creates {@code credentialsSecret} when it is missing (the default
     *     name only: a Secret the user named is theirs to create)
     * @param tokensSecret the operator's rendering of the node's tokens file
     */
    public record Auth(boolean enabled, String credentialsSecret, boolean createCredentials, String tokensSecret) {}

    /** @param clientPeers who may reach the client port; empty: everyone */
    public record Network(boolean policies, List<NetworkPolicyPeer> clientPeers) {}

    public static final Duration DEFAULT_CERTIFICATE_DURATION = Duration.ofDays(90);
    public static final Duration DEFAULT_RENEW_BEFORE = Duration.ofDays(30);
    public static final Duration DEFAULT_CA_DURATION = Duration.ofDays(365);
    public static final Duration DEFAULT_CA_RENEW_BEFORE = Duration.ofDays(30);
    public static final Duration DEFAULT_RELOAD_GRACE = Duration.ofMinutes(10);

    /**
     * @param headlessService the Service whose names the members have
     * @param clientTlsOnLiveMembers whether the members running now serve TLS on the client port; empty for a
     *     cluster that has no members yet (a new one): what an unset spec.tls.client.enabled means
     * @throws IllegalArgumentException a value that cannot be used, saying what to fix (ClusterModel turns it into
     *     the InvalidSpecException of the whole spec)
     */
    public static SecurityModel from(
            DhtCluster cluster,
            String headlessService,
            String clusterDomain,
            Optional<Boolean> clientTlsOnLiveMembers) {
        var meta = cluster.getMetadata();
        String name = meta.getName();
        var spec = cluster.getSpec();
        var annotations = meta.getAnnotations() != null ? meta.getAnnotations() : Map.<String, String>of();
        var tls = tls(
                spec != null ? spec.tls : null,
                name,
                SecurityNames.memberDnsWildcard(headlessService, meta.getNamespace(), clusterDomain),
                annotations);
        return new SecurityModel(
                tls,
                clientTls(
                        spec != null && spec.tls != null ? spec.tls.client : null,
                        tls,
                        name,
                        meta.getNamespace(),
                        headlessService,
                        clusterDomain,
                        clientTlsOnLiveMembers),
                auth(spec != null ? spec.auth : null, name),
                network(spec != null ? spec.network : null));
    }

    /**
     * The client port's TLS. Unset {@code enabled} is on for a new cluster (no members yet) and for one whose members
     * serve it already, off for one whose members run without it: an operator upgrade never moves a running
     * cluster's clients to TLS (they would need https:// and the CA first).
     */
    /** Why a cluster whose spec says nothing has client TLS: it was created with it (or turned it on since). */
    public static final String DEFAULT_ON = "on by default for clusters created with client TLS";

    static ClientTls clientTls(
            ClientTlsSpec spec,
            Tls memberTls,
            String cluster,
            String namespace,
            String headlessService,
            String clusterDomain,
            Optional<Boolean> onLiveMembers) {
        var s = spec != null ? spec : new ClientTlsSpec();
        boolean enabled;
        String reason;
        if (s.enabled != null) {
            enabled = s.enabled;
            reason = "spec.tls.client.enabled is " + s.enabled;
        } else if (onLiveMembers.isEmpty()) {
            enabled = true;
            reason = DEFAULT_ON; // the same words once the members serve it: the status does not flip
        } else {
            enabled = onLiveMembers.get();
            reason = enabled
                    ? DEFAULT_ON
                    : "off: the members ran without client TLS before it was the default; set spec.tls.client.enabled to"
                            + " true to move this cluster's clients to TLS (docs/operations.md)";
        }
        var issuer = s.issuer != null ? s.issuer : ClientTlsIssuer.Operator;
        Optional<IssuerRef> issuerRef = Optional.empty();
        if (issuer == ClientTlsIssuer.CertManager) {
            if (s.issuerRef == null || s.issuerRef.name == null || s.issuerRef.name.isBlank()) {
                throw new IllegalArgumentException(
                        "spec.tls.client.issuer CertManager needs spec.tls.client.issuerRef.name");
            }
            issuerRef = Optional.of(new IssuerRef(
                    s.issuerRef.name.trim(),
                    s.issuerRef.kind != null ? s.issuerRef.kind : "Issuer",
                    s.issuerRef.group != null ? s.issuerRef.group : "cert-manager.io"));
        }
        String service = cluster + "." + namespace;
        String members = headlessService + "." + namespace + ".svc";
        var names = List.of(
                cluster,
                service,
                service + ".svc",
                service + ".svc." + clusterDomain,
                "*." + members,
                "*." + members + "." + clusterDomain,
                "localhost");
        return new ClientTls(
                enabled,
                reason,
                issuer,
                issuerRef,
                s.clientAuth != null ? s.clientAuth : ClientAuthMode.Optional,
                SecurityNames.clientTlsSecret(cluster),
                SecurityNames.clientCaSecret(cluster),
                SecurityNames.clientCaConfigMap(cluster),
                SecurityNames.operatorClientSecret(cluster),
                names,
                memberTls.certificateDuration(),
                memberTls.renewBefore(),
                memberTls.caDuration(),
                memberTls.caRenewBefore(),
                memberTls.renewRequest(),
                memberTls.replaceCaRequest(),
                duration("spec.tls.client.reloadGrace", s.reloadGrace, DEFAULT_RELOAD_GRACE));
    }

    static Tls tls(TlsSpec spec, String cluster, String dnsName, Map<String, String> annotations) {
        var s = spec != null ? spec : new TlsSpec();
        var mode = s.mode != null ? s.mode : TlsMode.Operator;
        var certificate = duration("spec.tls.certificateDuration", s.certificateDuration, DEFAULT_CERTIFICATE_DURATION);
        var renew = duration("spec.tls.renewBefore", s.renewBefore, DEFAULT_RENEW_BEFORE);
        var ca = duration("spec.tls.caDuration", s.caDuration, DEFAULT_CA_DURATION);
        var caRenew = duration("spec.tls.caRenewBefore", s.caRenewBefore, DEFAULT_CA_RENEW_BEFORE);
        if (renew.compareTo(certificate) >= 0) {
            throw new IllegalArgumentException("spec.tls.renewBefore (" + shown(s.renewBefore, renew)
                    + ") must be shorter than spec.tls.certificateDuration ("
                    + shown(s.certificateDuration, certificate)
                    + "): a certificate would be renewed forever");
        }
        if (caRenew.compareTo(ca) >= 0) {
            throw new IllegalArgumentException("spec.tls.caRenewBefore (" + shown(s.caRenewBefore, caRenew)
                    + ") must be shorter than spec.tls.caDuration (" + shown(s.caDuration, ca) + ")");
        }
        if (mode == TlsMode.Operator && caRenew.compareTo(renew) < 0) {
            throw new IllegalArgumentException("spec.tls.caRenewBefore (" + shown(s.caRenewBefore, caRenew)
                    + ") must be at least spec.tls.renewBefore (" + shown(s.renewBefore, renew)
                    + "): a member certificate cannot"
                    + " outlive its CA, so the CA must be replaced before the certificate is due");
        }
        String secret;
        if (mode == TlsMode.Secret) {
            if (s.secretName == null || s.secretName.isBlank()) {
                throw new IllegalArgumentException("spec.tls.mode Secret needs spec.tls.secretName");
            }
            secret = s.secretName.trim();
        } else {
            secret = SecurityNames.memberTlsSecret(cluster);
        }
        Optional<IssuerRef> issuer = Optional.empty();
        if (mode == TlsMode.CertManager) {
            if (s.issuerRef == null || s.issuerRef.name == null || s.issuerRef.name.isBlank()) {
                throw new IllegalArgumentException("spec.tls.mode CertManager needs spec.tls.issuerRef.name");
            }
            issuer = Optional.of(new IssuerRef(
                    s.issuerRef.name.trim(),
                    s.issuerRef.kind != null ? s.issuerRef.kind : "Issuer",
                    s.issuerRef.group != null ? s.issuerRef.group : "cert-manager.io"));
        }
        return new Tls(
                mode,
                secret,
                SecurityNames.caSecret(cluster),
                issuer,
                certificate,
                renew,
                ca,
                caRenew,
                dnsName,
                annotations.getOrDefault(SecurityNames.RENEW_CERTIFICATE, ""),
                annotations.getOrDefault(SecurityNames.REPLACE_CA, ""));
    }

    /** The credentials Secret of a cluster whose client tokens are on (what its in-cluster clients read), or empty. */
    public static Optional<String> credentialsSecret(DhtCluster cluster) {
        var auth = auth(
                cluster.getSpec() != null ? cluster.getSpec().auth : null,
                cluster.getMetadata().getName());
        return auth.enabled() ? Optional.of(auth.credentialsSecret()) : Optional.empty();
    }

    /** The Secret holding the operator's own admin token of a cluster whose client tokens are on, or empty. */
    public static Optional<String> tokensSecret(DhtCluster cluster) {
        var auth = auth(
                cluster.getSpec() != null ? cluster.getSpec().auth : null,
                cluster.getMetadata().getName());
        return auth.enabled() ? Optional.of(auth.tokensSecret()) : Optional.empty();
    }

    static Auth auth(AuthSpec spec, String cluster) {
        boolean enabled = spec == null || spec.enabled == null || spec.enabled;
        boolean named = spec != null && spec.secretName != null && !spec.secretName.isBlank();
        return new Auth(
                enabled,
                named ? spec.secretName.trim() : SecurityNames.credentialsSecret(cluster),
                !named,
                SecurityNames.tokensSecret(cluster));
    }

    static Network network(NetworkSpec spec) {
        boolean policies = spec == null || spec.policies == null || spec.policies;
        return new Network(
                policies, spec != null && spec.clientPeers != null ? List.copyOf(spec.clientPeers) : List.of());
    }

    /** The value as written, or the default it stands for. */
    private static String shown(String value, Duration effective) {
        return value != null && !value.isBlank() ? value.trim() : effective.toDays() + "d (default)";
    }

    private static Duration duration(String field, String value, Duration otherwise) {
        return value == null || value.isBlank() ? otherwise : SpecDuration.parse(field, value);
    }
}
