package dev.dht.node.tls;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Reads the member plane's PEM files: certificates (the member's chain, the trusted CAs) and an unencrypted PKCS#8
 * private key ({@code -----BEGIN PRIVATE KEY-----}, what cert-manager and {@code openssl pkcs8 -topk8 -nocrypt}
 * write). Errors say which file and what to do.
 */
final class PemFiles {
    private static final String PKCS8 = "PRIVATE KEY";
    private static final String[] KEY_ALGORITHMS = {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS"};

    private PemFiles() {}

    /** Every certificate in the PEM text, in order; at least one. */
    static List<X509Certificate> certificates(String what, byte[] pem) {
        try {
            List<X509Certificate> certs = new ArrayList<>();
            for (var c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))) {
                certs.add((X509Certificate) c);
            }
            if (certs.isEmpty()) {
                throw new IllegalArgumentException(what + " holds no PEM certificate");
            }
            return certs;
        } catch (CertificateException e) {
            throw new IllegalArgumentException(what + " is not a PEM certificate file: " + e.getMessage(), e);
        }
    }

    /** The PKCS#8 private key in the PEM text. */
    static PrivateKey privateKey(String what, byte[] pem) {
        String text = new String(pem, StandardCharsets.US_ASCII);
        String begin = "-----BEGIN " + PKCS8 + "-----";
        int start = text.indexOf(begin);
        if (start < 0) {
            String hint = text.contains("BEGIN ENCRYPTED PRIVATE KEY")
                    ? "it is encrypted"
                    : text.contains("BEGIN RSA PRIVATE KEY") || text.contains("BEGIN EC PRIVATE KEY")
                            ? "it is PKCS#1/SEC1, not PKCS#8"
                            : "no '" + begin + "' block";
            throw new IllegalArgumentException(what + " is not an unencrypted PKCS#8 PEM key (" + hint + "): convert"
                    + " it with openssl pkcs8 -topk8 -nocrypt");
        }
        int end = text.indexOf("-----END " + PKCS8 + "-----", start);
        if (end < 0) {
            throw new IllegalArgumentException(what + ": the PEM key block is not terminated");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(text.substring(start + begin.length(), end));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": the PEM key is not base64", e);
        }
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // not this algorithm: try the next
            }
        }
        throw new IllegalArgumentException(what + ": a PKCS#8 key of none of " + String.join(", ", KEY_ALGORITHMS));
    }
}
