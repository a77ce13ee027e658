package dev.dht.node.plane;

/**
 * Which of the node's planes a connection belongs to (docs/security.md), known from the local port it was accepted
 * on. The admin plane is not a port: it is the privileged admin requests on the client port, granted to a loopback
 * peer or an admin token.
 */
public enum Plane {
    /** The client port: the /v0 API, /v0/status, /metrics, read-only status, and admin requests when granted. */
    CLIENT,
    /** The member port: the member protocol between the members of one cluster, nothing else. */
    MEMBER,
    /**
     * The metrics port (optional, plaintext): GET /metrics and /v0/status, for scrapers and probes beside a client
     * port that takes TLS only.
     */
    METRICS
}
