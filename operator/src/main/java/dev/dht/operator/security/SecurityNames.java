package dev.dht.operator.security;

import dev.dht.operator.api.v1alpha1.NodeOptions;

/** Names of the security objects a cluster owns, and where the pods mount them (the node contract). */
public final class SecurityNames {
    /** Where the member certificate, its key and the trusted CAs are mounted (tls.crt, tls.key, ca.crt). */
    public static final String MEMBER_TLS_DIR = "/etc/dht/member-tls";

    public static final String TLS_CERT = "tls.crt";
    public static final String TLS_KEY = "tls.key";
    public static final String CA_CERT = "ca.crt";
    /** The CA's private key in the CA Secret (mode Operator); never mounted anywhere. */
    public static final String CA_KEY = "ca.key";
    /** Where the client port's certificate, its key and the client CAs are mounted (tls.crt, tls.key, ca.crt). */
    public static final String CLIENT_TLS_DIR = "/etc/dht/client-tls";
    /** Where the client CA bundle is mounted into the pods of the project's own clients (benchmark Jobs). */
    public static final String CLIENT_CA_DIR = "/etc/dht/client-ca";
    /** The plaintext port serving GET /metrics and /v0/status only (probes, scrapers) when the client port has TLS. */
    public static final int METRICS_PORT = 9080;

    public static final String METRICS_PORT_NAME = "metrics";
    /** Where the tokens file is mounted: {@value #AUTH_DIR}/{@value #TOKENS_KEY}. */
    public static final String AUTH_DIR = "/etc/dht/auth";

    public static final String TOKENS_KEY = "tokens";
    /** Key of the operator's own admin token in the tokens Secret (not mounted into the pods). */
    public static final String OPERATOR_TOKEN_KEY = "operator";
    /** Member port = client port + this offset (the node's --member-port-offset default). */
    public static final int MEMBER_PORT_OFFSET = NodeOptions.Default.MEMBER_PORT_OFFSET;

    public static final String MEMBER_PORT_NAME = "member";

    /** Annotation on a DhtCluster: a new value re-issues the members' certificate now (mode Operator). */
    public static final String RENEW_CERTIFICATE = "dht.dev/renew-certificate";
    /** Annotation on a DhtCluster: a new value replaces the CA now, in phases (mode Operator). */
    public static final String REPLACE_CA = "dht.dev/replace-ca";

    private SecurityNames() {}

    /** The CA (certificate and key) of a cluster in mode Operator. */
    public static String caSecret(String cluster) {
        return cluster + "-ca";
    }

    /** The Secret the members mount at {@link #MEMBER_TLS_DIR} (modes Operator and CertManager). */
    public static String memberTlsSecret(String cluster) {
        return cluster + "-member-tls";
    }

    /** The client port's CA (issuer Operator): certificate and key, never mounted. */
    public static String clientCaSecret(String cluster) {
        return cluster + "-client-ca";
    }

    /** The Secret the members mount at {@link #CLIENT_TLS_DIR}. */
    public static String clientTlsSecret(String cluster) {
        return cluster + "-client-tls";
    }

    /** The client CA bundle as a ConfigMap (key ca.crt): what clients trust for the nodes. */
    public static String clientCaConfigMap(String cluster) {
        return cluster + "-client-ca.crt";
    }

    /** The operator's own admin client certificate for the client port (its admin calls); never mounted. */
    public static String operatorClientSecret(String cluster) {
        return cluster + "-operator-client-tls";
    }

    /** The DhtBenchmark Jobs' client certificate (read-write) for the client port; never mounted by the members. */
    public static String benchmarkClientSecret(String cluster) {
        return cluster + "-benchmark-client-tls";
    }

    /** A DhtUser's certificate Secret unless its spec names one. */
    public static String userSecret(String user) {
        return user + "-dht-client";
    }

    /** The user-facing tokens: one key per token (default name). */
    public static String credentialsSecret(String cluster) {
        return cluster + "-auth";
    }

    /** The node's tokens file, rendered by the operator from the credentials and its own token. */
    public static String tokensSecret(String cluster) {
        return cluster + "-auth-tokens";
    }

    public static String networkPolicy(String cluster) {
        return cluster;
    }

    /** The DNS name in the member certificate: every member's name through the headless Service. */
    public static String memberDnsWildcard(String headlessService, String namespace, String clusterDomain) {
        return "*." + headlessService + "." + namespace + ".svc." + clusterDomain;
    }
}
