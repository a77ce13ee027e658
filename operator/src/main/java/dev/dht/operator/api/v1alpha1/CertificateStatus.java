package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** What the status shows of one port's certificates: the member port's ({@link TlsStatus}) or the client port's. */
public abstract class CertificateStatus {
    @JsonPropertyDescription("The Secret the members mount: tls.crt, tls.key and ca.crt (the CAs they trust).")
    public String secretName;

    @JsonPropertyDescription("When the members' certificate expires (RFC 3339).")
    public String certificateNotAfter;

    @JsonPropertyDescription("SHA-256 fingerprint of the members' certificate.")
    public String certificateFingerprint;

    @JsonPropertyDescription("When the CA that signed it expires (issued by the operator: the cluster's CA).")
    public String caNotAfter;

    @JsonPropertyDescription("SHA-256 fingerprint of that CA.")
    public String caFingerprint;

    @JsonPropertyDescription("Issued by the operator: Steady, or the phase of a CA replacement: TrustingNewCa (the"
            + " members trust old and new), Reissuing (their certificate is signed by the new CA), DroppingOldCa.")
    public String rotation;

    @JsonPropertyDescription("What the operator does or waits for.")
    public String message;

    protected boolean sameCertificates(CertificateStatus s) {
        return Objects.equals(secretName, s.secretName)
                && Objects.equals(certificateNotAfter, s.certificateNotAfter)
                && Objects.equals(certificateFingerprint, s.certificateFingerprint)
                && Objects.equals(caNotAfter, s.caNotAfter)
                && Objects.equals(caFingerprint, s.caFingerprint)
                && Objects.equals(rotation, s.rotation)
                && Objects.equals(message, s.message);
    }

    protected int certificatesHash() {
        return Objects.hash(
                secretName, certificateNotAfter, certificateFingerprint, caNotAfter, caFingerprint, rotation, message);
    }
}
