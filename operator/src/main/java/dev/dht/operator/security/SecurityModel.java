package dev.dht.operator.security;

import dev.dht.operator.api.v1alpha1.AuthSpec;
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
 * A cluster's security settings with every default applied and checked: TLS between the members, tokens on the
 * client API, NetworkPolicies. Secure by default: a spec without any of them gets all three.
 */
public record SecurityModel(Tls tls, Auth auth, Network network) {

  /**
   * @param secretName the Secret the members mount (mode Secret: the user's)
   * @param memberDnsName the name the member certificate must cover (a wildcard over the headless Service)
   * @param renewRequest the value of the {@value SecurityNames#RENEW_CERTIFICATE} annotation ("" if none)
   * @param replaceCaRequest the value of the {@value SecurityNames#REPLACE_CA} annotation ("" if none)
   */
  public record Tls(TlsMode mode, String secretName, Optional<IssuerRef> issuer, Duration certificateDuration,
      Duration renewBefore, Duration caDuration, Duration caRenewBefore, String memberDnsName, String renewRequest,
      String replaceCaRequest) {
    public boolean enabled() {
      return mode != TlsMode.Disabled;
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

  /**
   * @param headlessService the Service whose names the members have
   * @throws IllegalArgumentException a value that cannot be used, saying what to fix (ClusterModel turns it into
   *     the InvalidSpecException of the whole spec)
   */
  public static SecurityModel from(DhtCluster cluster, String headlessService, String clusterDomain) {
    var meta = cluster.getMetadata();
    String name = meta.getName();
    var spec = cluster.getSpec();
    var annotations = meta.getAnnotations() != null ? meta.getAnnotations() : Map.<String, String>of();
    return new SecurityModel(
        tls(spec != null ? spec.tls : null, name, SecurityNames.memberDnsWildcard(headlessService,
            meta.getNamespace(), clusterDomain), annotations),
        auth(spec != null ? spec.auth : null, name),
        network(spec != null ? spec.network : null));
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
          + ") must be shorter than spec.tls.certificateDuration (" + shown(s.certificateDuration, certificate)
          + "): a certificate would be renewed forever");
    }
    if (caRenew.compareTo(ca) >= 0) {
      throw new IllegalArgumentException("spec.tls.caRenewBefore (" + shown(s.caRenewBefore, caRenew)
          + ") must be shorter than spec.tls.caDuration (" + shown(s.caDuration, ca) + ")");
    }
    if (mode == TlsMode.Operator && caRenew.compareTo(renew) < 0) {
      throw new IllegalArgumentException("spec.tls.caRenewBefore (" + shown(s.caRenewBefore, caRenew)
          + ") must be at least spec.tls.renewBefore (" + shown(s.renewBefore, renew) + "): a member certificate cannot"
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
      issuer = Optional.of(new IssuerRef(s.issuerRef.name.trim(), s.issuerRef.kind != null ? s.issuerRef.kind
          : "Issuer", s.issuerRef.group != null ? s.issuerRef.group : "cert-manager.io"));
    }
    return new Tls(mode, secret, issuer, certificate, renew, ca, caRenew, dnsName,
        annotations.getOrDefault(SecurityNames.RENEW_CERTIFICATE, ""),
        annotations.getOrDefault(SecurityNames.REPLACE_CA, ""));
  }

  /** The credentials Secret of a cluster whose client tokens are on (what its in-cluster clients read), or empty. */
  public static Optional<String> credentialsSecret(DhtCluster cluster) {
    var auth = auth(cluster.getSpec() != null ? cluster.getSpec().auth : null, cluster.getMetadata().getName());
    return auth.enabled() ? Optional.of(auth.credentialsSecret()) : Optional.empty();
  }

  /** The Secret holding the operator's own admin token of a cluster whose client tokens are on, or empty. */
  public static Optional<String> tokensSecret(DhtCluster cluster) {
    var auth = auth(cluster.getSpec() != null ? cluster.getSpec().auth : null, cluster.getMetadata().getName());
    return auth.enabled() ? Optional.of(auth.tokensSecret()) : Optional.empty();
  }

  static Auth auth(AuthSpec spec, String cluster) {
    boolean enabled = spec == null || spec.enabled == null || spec.enabled;
    boolean named = spec != null && spec.secretName != null && !spec.secretName.isBlank();
    return new Auth(enabled, named ? spec.secretName.trim() : SecurityNames.credentialsSecret(cluster), !named,
        SecurityNames.tokensSecret(cluster));
  }

  static Network network(NetworkSpec spec) {
    boolean policies = spec == null || spec.policies == null || spec.policies;
    return new Network(policies, spec != null && spec.clientPeers != null ? List.copyOf(spec.clientPeers)
        : List.of());
  }

  /** The value as written, or the default it stands for. */
  private static String shown(String value, Duration effective) {
    return value != null && !value.isBlank() ? value.trim() : effective.toDays() + "d (default)";
  }

  private static Duration duration(String field, String value, Duration otherwise) {
    return value == null || value.isBlank() ? otherwise : SpecDuration.parse(field, value);
  }
}
