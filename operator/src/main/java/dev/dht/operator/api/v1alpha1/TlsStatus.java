package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The member plane's certificates as the operator last saw them. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TlsStatus extends CertificateStatus {
    @JsonPropertyDescription("Operator, Secret, CertManager or Disabled.")
    public TlsMode mode;

    @JsonPropertyDescription("The client port's TLS.")
    public ClientTlsStatus client;

    @Override
    public String toString() {
        return "TlsStatus{" + mode + ", " + secretName + ", until " + certificateNotAfter + ", rotation " + rotation
                + ", " + message + ", client " + client + "}";
    }
}
