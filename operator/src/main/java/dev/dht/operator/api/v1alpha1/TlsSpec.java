package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * Mutual TLS between the members (their member port), and TLS on the client port ({@link #client}). On by default,
 * with certificates the operator issues.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.mode) || self.mode != 'Secret' || has(self.secretName)",
        message = "tls.mode Secret needs tls.secretName: a Secret with tls.crt, tls.key (PKCS#8) and ca.crt",
        fieldPath = ".secretName",
        reason = "FieldValueRequired")
@ValidationRule(
        value = "!has(self.mode) || self.mode != 'CertManager' || has(self.issuerRef)",
        message = "tls.mode CertManager needs tls.issuerRef: the cert-manager Issuer or ClusterIssuer that signs",
        fieldPath = ".issuerRef",
        reason = "FieldValueRequired")
public class TlsSpec {
    static final String DURATION = "self.matches('^[0-9]+(m|h|d)$')";

    @Default("Operator")
    @JsonPropertyDescription("Operator (default): a CA per cluster kept in the Secret <name>-ca issues the members'"
            + " certificate, renews it and replaces the CA in phases without restarting the pods. Secret: your own Secret"
            + " (secretName). CertManager: a cert-manager Certificate from issuerRef. Disabled: no TLS between the members"
            + " (the nodes run with --member-insecure; trusted test networks only).")
    public TlsMode mode;

    @Size(max = 253)
    @JsonPropertyDescription("mode Secret: a Secret in the cluster's namespace with tls.crt (a certificate for"
            + " *.<name>-headless.<namespace>.svc.<domain>, serverAuth and clientAuth), tls.key (PKCS#8 PEM) and ca.crt."
            + " You renew it; the nodes reload it without a restart.")
    public String secretName;

    @JsonPropertyDescription("mode CertManager: the Issuer or ClusterIssuer of the Certificate <name>-member-tls.")
    public IssuerRef issuerRef;

    @Size(max = 16)
    @Default("90d")
    @ValidationRule(value = DURATION, message = "tls.certificateDuration must be a duration such as 90d or 2160h")
    @JsonPropertyDescription("Modes Operator and CertManager: how long a member certificate is valid.")
    public String certificateDuration;

    @Size(max = 16)
    @Default("30d")
    @ValidationRule(value = DURATION, message = "tls.renewBefore must be a duration such as 30d or 720h")
    @JsonPropertyDescription("Modes Operator and CertManager: renew a member certificate this long before it expires."
            + " In every mode the condition CertificatesValid turns False (with a Warning Event) once the certificate in"
            + " use is this close to its end.")
    public String renewBefore;

    @Size(max = 16)
    @Default("365d")
    @ValidationRule(value = DURATION, message = "tls.caDuration must be a duration such as 365d")
    @JsonPropertyDescription("Mode Operator: how long the cluster's CA is valid.")
    public String caDuration;

    @Size(max = 16)
    @Default("30d")
    @ValidationRule(value = DURATION, message = "tls.caRenewBefore must be a duration such as 30d")
    @JsonPropertyDescription("Mode Operator: replace the CA this long before it expires (trust old and new, re-issue,"
            + " drop the old).")
    public String caRenewBefore;

    @Default("{}")
    @JsonPropertyDescription("TLS on the client port (certificateDuration, renewBefore, caDuration and caRenewBefore"
            + " apply to its certificates and CA too).")
    public ClientTlsSpec client;
}
