package dev.dht.operator.api.v1alpha1;

/** Whether clients present certificates on the client port. */
public enum ClientAuthMode {
    /** Every client presents a certificate of the cluster's client CA (the handshake fails without one). */
    Required,
    /** A certificate is checked if presented; clients without one send a token. */
    Optional,
    /** No certificate is asked for: tokens only. */
    None
}
