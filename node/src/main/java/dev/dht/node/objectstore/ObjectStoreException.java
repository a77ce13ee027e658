package dev.dht.node.objectstore;

/**
 * A failed object store call, with what the store answered: the HTTP status (0 when no answer came) and S3's error
 * code ({@code NoSuchKey}, {@code AccessDenied}, ...; {@code IO} when no answer came, {@code Credentials} when the
 * node found none to sign with). The message says what to check.
 */
public class ObjectStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String code;

    public ObjectStoreException(String message, int status, String code) {
        super(message);
        this.status = status;
        this.code = code;
    }

    public ObjectStoreException(String message, int status, String code, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.code = code;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    /** The store refused who we are (wrong, expired or missing credentials, or not allowed). */
    public boolean credentialsRefused() {
        return status == 403
                || "Credentials".equals(code)
                || "InvalidAccessKeyId".equals(code)
                || "SignatureDoesNotMatch".equals(code)
                || "InvalidToken".equals(code)
                || "ExpiredToken".equals(code);
    }
}
