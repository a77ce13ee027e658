package dev.dht.operator.api.v1alpha1;

/** Who issues the client port's certificates. */
public enum ClientTlsIssuer {
    /** A client CA per cluster kept by the operator; it issues the nodes' and DhtUsers' certificates. */
    Operator,
    /** A cert-manager Certificate from spec.tls.client.issuerRef (cert-manager must be installed). */
    CertManager
}
