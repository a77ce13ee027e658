package dev.dht.node.http;

/** A request the node refuses; the message becomes the plain-text body of the 4xx answer. */
public final class BadRequestException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String status;

    public BadRequestException(String message) {
        this(Responses.BAD_REQUEST, message);
    }

    public BadRequestException(String status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    /** one-nio status line, e.g. "400 Bad Request". */
    public String status() {
        return status;
    }
}
