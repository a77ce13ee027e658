package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * TLS on the client port (docs/security.md, "Client TLS"). On for clusters created with this operator version or
 * later; a cluster that ran before keeps its clients in plaintext until {@code enabled} says otherwise (an operator
 * upgrade never switches clients to TLS by itself).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.issuer) || self.issuer != 'CertManager' || has(self.issuerRef)",
        message = "tls.client.issuer CertManager needs tls.client.issuerRef: the cert-manager Issuer or ClusterIssuer"
                + " that signs the nodes' client-port certificate",
        fieldPath = ".issuerRef",
        reason = "FieldValueRequired")
public class ClientTlsSpec {
    @JsonPropertyDescription("The client port serves TLS only (true) or plaintext (false). Unset: true for a cluster"
            + " created with this operator version or later, false for one whose members ran before without it (set"
            + " true to move its clients to TLS: the pods roll, and clients need https:// and the CA).")
    public Boolean enabled;

    @Default("Operator")
    @JsonPropertyDescription("Operator (default): a client CA per cluster (Secret <name>-client-ca) issues the nodes'"
            + " certificate and DhtUsers' client certificates, renews them and replaces the CA in phases. CertManager: a"
            + " cert-manager Certificate from issuerRef (client certificates: cert-manager Certificates of the same"
            + " issuer, docs/operations.md).")
    public ClientTlsIssuer issuer;

    @JsonPropertyDescription("issuer CertManager: the Issuer or ClusterIssuer of the Certificate <name>-client-tls.")
    public IssuerRef issuerRef;

    @Default("Optional")
    @JsonPropertyDescription("Client certificates. Optional (default): a client presents one (its subject's O names"
            + " its scope) or sends a token; an untrusted one fails the handshake. Required: every client presents one."
            + " None: none is asked for (tokens only).")
    public ClientAuthMode clientAuth;

    @Size(max = 16)
    @Default("10m")
    @ValidationRule(
            value = "self.matches('^[0-9]+(s|m|h)$')",
            message = "tls.client.reloadGrace must be a duration such as 90s, 10m or 1h")
    @JsonPropertyDescription("How long clients may take to load a new CA bundle or a re-issued client certificate"
            + " from their mounts: each phase of a client CA replacement waits at least this long, after every member"
            + " was seen using the previous one.")
    public String reloadGrace;
}
