package dev.dht.node.objectstore;

import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * An SDK failure as an {@link ObjectStoreException} whose message says what the store answered and what to check:
 * an operator reads it in the node's log, its backup status and the DhtBackup's.
 */
final class StoreErrors {
    private StoreErrors() {}

    static ObjectStoreException of(String what, S3Location location, StoreCredentials credentials, Exception e) {
        StoreCredentials.Unavailable none = cause(e, StoreCredentials.Unavailable.class);
        if (none != null) {
            return new ObjectStoreException(
                    what + " at " + location + ": no credentials: " + none.getMessage(), 0, "Credentials", e);
        }
        AwsServiceException service = cause(e, AwsServiceException.class);
        if (service != null) {
            var details = service.awsErrorDetails();
            String code = details == null || details.errorCode() == null ? "" : details.errorCode();
            String message =
                    details == null || details.errorMessage() == null ? "" : " (" + details.errorMessage() + ")";
            if (details != null && "Sts".equalsIgnoreCase(details.serviceName())) {
                // the web identity step of the chain: STS refused the token or the role
                return new ObjectStoreException(
                        what + " at " + location + ": no credentials: STS answered HTTP " + service.statusCode() + " "
                                + code + message + " to " + credentials,
                        0,
                        "Credentials",
                        e);
            }
            int status = service.statusCode();
            return new ObjectStoreException(
                    what + " at " + location + ": HTTP " + status + (code.isEmpty() ? "" : " " + code) + message
                            + hint(status, code, location, credentials),
                    status,
                    code.isEmpty() ? null : code,
                    e);
        }
        return new ObjectStoreException(what + " at " + location + ": no answer: " + e.getMessage(), 0, "IO", e);
    }

    private static String hint(int status, String code, S3Location location, StoreCredentials credentials) {
        if ("NoSuchBucket".equals(code)) {
            return ": the bucket " + location.bucket() + " does not exist (create it first)";
        }
        if (status == 403
                || "InvalidAccessKeyId".equals(code)
                || "InvalidToken".equals(code)
                || "ExpiredToken".equals(code)) {
            return ": the store refused the credentials (" + credentials + "): check the credentials Secret, or the"
                    + " role of the service account and what it allows on " + location.bucket();
        }
        return "";
    }

    private static <T extends Throwable> T cause(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
