package dev.dht.operator.security.pki;

/** A certificate or key that cannot be made, read or used; the message says which and why. */
public final class PkiException extends RuntimeException {
    public PkiException(String message) {
        super(message);
    }

    public PkiException(String message, Throwable cause) {
        super(message, cause);
    }
}
