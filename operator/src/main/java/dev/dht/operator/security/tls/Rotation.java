package dev.dht.operator.security.tls;

/** Where a cluster's certificates stand (mode Operator): steady, or a phase of a CA replacement. */
public enum Rotation {
    Steady,
    /** The members' ca.crt holds the old and the new CA; their certificate is still the old CA's. */
    TrustingNewCa,
    /** Their certificate is the new CA's; ca.crt still holds the old one too, for members not reloaded yet. */
    Reissuing,
    /** ca.crt is being cut to the new CA alone. */
    DroppingOldCa
}
