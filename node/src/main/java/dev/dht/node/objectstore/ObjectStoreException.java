package dev.dht.node.objectstore;

/**
 * A failed object store call, with what S3 answered: the HTTP status (0 when no answer came) and the error code
 * of its XML body ({@code NoSuchKey}, {@code AccessDenied}, ...).
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

    public ObjectStoreException(String message, Throwable cause) {
        super(message, cause);
        this.status = 0;
        this.code = "IO";
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    /** Worth another attempt: no answer, a server error, or S3 asking to slow down. */
    public boolean retryable() {
        return status == 0 && !"Credentials".equals(code) || status >= 500 || status == 429;
    }
}
