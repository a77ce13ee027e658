package dev.dht.operator.api.v1alpha1;

/** Where the members' certificate for the member plane comes from. */
public enum TlsMode {
    /** A CA per cluster kept by the operator in a Secret; it issues, renews and replaces the certificates. */
    Operator,
    /** A Secret the user provides and renews (tls.crt, tls.key, ca.crt). */
    Secret,
    /** A cert-manager Certificate from spec.tls.issuerRef (cert-manager must be installed). */
    CertManager,
    /** No TLS: the nodes run with --member-insecure. Only for trusted test networks. */
    Disabled
}
