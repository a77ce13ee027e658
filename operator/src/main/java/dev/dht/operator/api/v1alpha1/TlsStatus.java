package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** The member plane's certificates as the operator last saw them. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TlsStatus {
  @JsonPropertyDescription("Operator, Secret, CertManager or Disabled.")
  public TlsMode mode;

  @JsonPropertyDescription("The Secret the members mount at /etc/dht/member-tls.")
  public String secretName;

  @JsonPropertyDescription("When the members' certificate expires (RFC 3339).")
  public String certificateNotAfter;

  @JsonPropertyDescription("SHA-256 fingerprint of the members' certificate.")
  public String certificateFingerprint;

  @JsonPropertyDescription("When the CA that signed it expires (mode Operator: the cluster's CA).")
  public String caNotAfter;

  @JsonPropertyDescription("SHA-256 fingerprint of that CA.")
  public String caFingerprint;

  @JsonPropertyDescription("Mode Operator: Steady, or the phase of a CA replacement: TrustingNewCa (the members"
      + " trust old and new), Reissuing (their certificate is signed by the new CA), DroppingOldCa.")
  public String rotation;

  @JsonPropertyDescription("What the operator does or waits for.")
  public String message;

  @JsonPropertyDescription("The client port's TLS.")
  public ClientTlsStatus client;

  @Override
  public boolean equals(Object o) {
    return o instanceof TlsStatus s && mode == s.mode && Objects.equals(secretName, s.secretName)
        && Objects.equals(certificateNotAfter, s.certificateNotAfter)
        && Objects.equals(certificateFingerprint, s.certificateFingerprint)
        && Objects.equals(caNotAfter, s.caNotAfter) && Objects.equals(caFingerprint, s.caFingerprint)
        && Objects.equals(rotation, s.rotation) && Objects.equals(message, s.message)
        && Objects.equals(client, s.client);
  }

  @Override
  public int hashCode() {
    return Objects.hash(mode, secretName, certificateNotAfter, certificateFingerprint, caNotAfter, caFingerprint,
        rotation, message, client);
  }

  @Override
  public String toString() {
    return "TlsStatus{" + mode + ", " + secretName + ", until " + certificateNotAfter + ", rotation " + rotation
        + ", " + message + ", client " + client + "}";
  }
}
