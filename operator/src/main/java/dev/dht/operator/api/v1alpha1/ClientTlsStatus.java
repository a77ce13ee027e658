package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The client port's TLS as the operator last saw it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ClientTlsStatus extends CertificateStatus {
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

    @Override
    public String toString() {
        return "ClientTlsStatus{" + enabled + " (" + reason + "), " + issuer + ", " + clientAuth + ", until "
                + certificateNotAfter + ", rotation " + rotation + ", " + message + "}";
    }
}
