package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** The client port's TLS as the operator last saw it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ClientTlsStatus {
  @JsonPropertyDescription("Whether the members' client port serves TLS only.")
  public Boolean enabled;

  @JsonPropertyDescription("Why it is on or off: spec.tls.client.enabled, the default for new clusters, or a"
      + " cluster whose members ran before client TLS was the default.")
  public String reason;

  @JsonPropertyDescription("Operator or CertManager.")
  public ClientTlsIssuer issuer;

  @JsonPropertyDescription("Required, Optional or None.")
  public ClientAuthMode clientAuth;

  @JsonPropertyDescription("The ConfigMap with the CA bundle clients trust (key ca.crt): mount it, or read it.")
  public String caConfigMap;

  @JsonPropertyDescription("The Secret the members mount at /etc/dht/client-tls.")
  public String secretName;

  @JsonPropertyDescription("When the members' client-port certificate expires (RFC 3339).")
  public String certificateNotAfter;

  @JsonPropertyDescription("SHA-256 fingerprint of that certificate.")
  public String certificateFingerprint;

  @JsonPropertyDescription("When the CA that signed it expires.")
  public String caNotAfter;

  @JsonPropertyDescription("SHA-256 fingerprint of that CA.")
  public String caFingerprint;

  @JsonPropertyDescription("issuer Operator: Steady, or the phase of a client CA replacement (TrustingNewCa,"
      + " Reissuing, DroppingOldCa).")
  public String rotation;

  @JsonPropertyDescription("What the operator does or waits for.")
  public String message;

  @Override
  public boolean equals(Object o) {
    return o instanceof ClientTlsStatus s && Objects.equals(enabled, s.enabled) && Objects.equals(reason, s.reason)
        && issuer == s.issuer && clientAuth == s.clientAuth && Objects.equals(caConfigMap, s.caConfigMap)
        && Objects.equals(secretName, s.secretName) && Objects.equals(certificateNotAfter, s.certificateNotAfter)
        && Objects.equals(certificateFingerprint, s.certificateFingerprint) && Objects.equals(caNotAfter, s.caNotAfter)
        && Objects.equals(caFingerprint, s.caFingerprint) && Objects.equals(rotation, s.rotation)
        && Objects.equals(message, s.message);
  }

  @Override
  public int hashCode() {
    return Objects.hash(enabled, reason, issuer, clientAuth, caConfigMap, secretName, certificateNotAfter,
        certificateFingerprint, caNotAfter, caFingerprint, rotation, message);
  }

  @Override
  public String toString() {
    return "ClientTlsStatus{" + enabled + " (" + reason + "), " + issuer + ", " + clientAuth + ", until "
        + certificateNotAfter + ", rotation " + rotation + ", " + message + "}";
  }
}
