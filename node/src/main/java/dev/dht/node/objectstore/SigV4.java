package dev.dht.node.objectstore;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * AWS Signature Version 4 for S3 requests (the header form): canonical request, string to sign, signing key. Pure:
 * the caller gives the time, so tests can check it against AWS's published example.
 */
public final class SigV4 {
    /** The payload hash of a streamed body whose hash is not computed (S3 accepts it; GCM tags guard our bytes). */
    public static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
    public static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    private SigV4() {
    }

    /** The headers to add to a request: x-amz-date, x-amz-content-sha256 and Authorization. */
    public static Map<String, String> sign(String method, String host, String canonicalUri,
                                           Map<String, String> query, String payloadSha256, Credentials credentials,
                                           String region, ZonedDateTime now) {
        String amzDate = now.withZoneSameInstant(ZoneOffset.UTC).format(AMZ_DATE);
        String date = amzDate.substring(0, 8);
        TreeMap<String, String> headers = new TreeMap<>();
        headers.put("host", host);
        headers.put("x-amz-content-sha256", payloadSha256);
        headers.put("x-amz-date", amzDate);
        StringBuilder canonicalHeaders = new StringBuilder();
        for (var e : headers.entrySet()) {
            canonicalHeaders.append(e.getKey()).append(':').append(e.getValue().trim()).append('\n');
        }
        String signedHeaders = String.join(";", headers.keySet());
        String canonicalRequest = method + '\n' + canonicalUri + '\n' + canonicalQuery(query) + '\n'
                + canonicalHeaders + '\n' + signedHeaders + '\n' + payloadSha256;
        String scope = date + "/" + region + "/s3/aws4_request";
        String stringToSign = "AWS4-HMAC-SHA256\n" + amzDate + '\n' + scope + '\n' + sha256Hex(canonicalRequest);
        byte[] key = hmac(("AWS4" + credentials.secretAccessKey()).getBytes(StandardCharsets.UTF_8), date);
        key = hmac(key, region);
        key = hmac(key, "s3");
        key = hmac(key, "aws4_request");
        String signature = HexFormat.of().formatHex(hmac(key, stringToSign));
        return Map.of("x-amz-date", amzDate, "x-amz-content-sha256", payloadSha256,
                "Authorization", "AWS4-HMAC-SHA256 Credential=" + credentials.accessKeyId() + "/" + scope
                        + ", SignedHeaders=" + signedHeaders + ", Signature=" + signature);
    }

    /** Query parameters sorted by name, names and values URI-encoded, {@code name=value} joined by '&'. */
    static String canonicalQuery(Map<String, String> query) {
        TreeMap<String, String> sorted = new TreeMap<>();
        query.forEach((k, v) -> sorted.put(encode(k, true), encode(v == null ? "" : v, true)));
        StringBuilder sb = new StringBuilder();
        for (var e : sorted.entrySet()) {
            if (!sb.isEmpty()) {
                sb.append('&');
            }
            sb.append(e.getKey()).append('=').append(e.getValue());
        }
        return sb.toString();
    }

    /** RFC 3986 encoding as SigV4 wants it: unreserved characters stay, '/' stays in paths, the rest is %XX. */
    public static String encode(String s, boolean encodeSlash) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xFF);
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
                    || c == '.' || c == '~' || c == '/' && !encodeSlash) {
                sb.append(c);
            } else {
                sb.append('%').append(String.format("%02X", b & 0xFF));
            }
        }
        return sb.toString();
    }

    public static String sha256Hex(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String sha256Hex(String s) {
        return sha256Hex(s.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
