package dev.dht.operator.security.pki;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/** Facts about certificates the operator reads back: names, validity, who signed them, their fingerprints. */
public final class Certificates {
    private static final int DNS_NAME = 2;

    private Certificates() {}

    /** SHA-256 of the DER encoding, lower-case hex: how the status and the logs name a certificate. */
    public static String fingerprint(X509Certificate certificate) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
        } catch (CertificateEncodingException | java.security.NoSuchAlgorithmException e) {
            throw new PkiException(
                    "cannot fingerprint " + certificate.getSubjectX500Principal() + ": " + e.getMessage(), e);
        }
    }

    public static Instant notAfter(X509Certificate certificate) {
        return certificate.getNotAfter().toInstant();
    }

    /** The DNS names of the subject alternative name extension, in order. */
    public static List<String> dnsNames(X509Certificate certificate) {
        var out = new ArrayList<String>();
        try {
            var names = certificate.getSubjectAlternativeNames();
            if (names != null) {
                for (List<?> name : names) {
                    if (name.size() >= 2 && Integer.valueOf(DNS_NAME).equals(name.get(0))) {
                        out.add(String.valueOf(name.get(1)));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            throw new PkiException("unreadable subject alternative names: " + e.getMessage(), e);
        }
        return out;
    }

    /**
     * Whether one of the certificate's DNS names covers {@code host} as TLS clients match it (RFC 6125): exactly, or
     * by a wildcard standing for the whole left-most label ({@code *.a.b} covers {@code x.a.b}, not {@code a.b} or
     * {@code y.x.a.b}).
     */
    public static boolean covers(X509Certificate certificate, String host) {
        String h = host.toLowerCase(Locale.ROOT);
        for (String name : dnsNames(certificate)) {
            String n = name.toLowerCase(Locale.ROOT);
            if (n.equals(h)) {
                return true;
            }
            if (n.startsWith("*.")) {
                int dot = h.indexOf('.');
                if (dot > 0 && h.substring(dot + 1).equals(n.substring(2))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether {@code issuer}'s key signed {@code certificate} (the signature checks out). */
    public static boolean signedBy(X509Certificate certificate, X509Certificate issuer) {
        if (!certificate.getIssuerX500Principal().equals(issuer.getSubjectX500Principal())) {
            return false;
        }
        try {
            certificate.verify(issuer.getPublicKey());
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** Whether the private key belongs to the certificate: it signs something the certificate's key verifies. */
    public static boolean matches(X509Certificate certificate, PrivateKey key) {
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            default -> null;
        };
        if (algorithm == null || !certificate.getPublicKey().getAlgorithm().equals(key.getAlgorithm())) {
            return false;
        }
        try {
            byte[] probe = "dht key check".getBytes(StandardCharsets.US_ASCII);
            var signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            var verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** Whether the certificate is a CA's (basic constraints say so). */
    public static boolean isCa(X509Certificate certificate) {
        return certificate.getBasicConstraints() >= 0;
    }
}
