package dev.dht.operator.security.pki;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;

/**
 * PEM text of certificates and PKCS#8 private keys (the files the nodes read: {@code tls.crt}, {@code ca.crt},
 * {@code tls.key}), written and read without a security provider of BouncyCastle's: the JDK's key and certificate
 * factories do the work, BouncyCastle only names a PKCS#8 key's algorithm.
 */
public final class Pem {
    private static final Pattern BLOCK =
            Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
    private static final Base64.Encoder LINES = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));

    private Pem() {}

    public static String certificate(X509Certificate certificate) {
        try {
            return block("CERTIFICATE", certificate.getEncoded());
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new PkiException("cannot encode certificate " + certificate.getSubjectX500Principal(), e);
        }
    }

    /** Several certificates, one block each, in order (a CA bundle). */
    public static String certificates(List<X509Certificate> certificates) {
        var out = new StringBuilder();
        certificates.forEach(c -> out.append(certificate(c)));
        return out.toString();
    }

    /** The key as unencrypted PKCS#8 ({@code BEGIN PRIVATE KEY}), whatever its algorithm. */
    public static String privateKey(PrivateKey key) {
        if (!"PKCS#8".equals(key.getFormat())) {
            throw new PkiException("a " + key.getAlgorithm() + " key in format " + key.getFormat() + ", not PKCS#8");
        }
        return block("PRIVATE KEY", key.getEncoded());
    }

    /** Every CERTIFICATE block of the text, in order; at least one. */
    public static List<X509Certificate> readCertificates(String pem) {
        var out = new ArrayList<X509Certificate>();
        try {
            var factory = CertificateFactory.getInstance("X.509");
            for (byte[] der : blocks(pem, "CERTIFICATE")) {
                out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
            }
        } catch (CertificateException | ClassCastException e) {
            throw new PkiException("not an X.509 certificate: " + e.getMessage(), e);
        }
        if (out.isEmpty()) {
            throw new PkiException("no '-----BEGIN CERTIFICATE-----' block");
        }
        return out;
    }

    /** The one PKCS#8 PRIVATE KEY block of the text (EC or RSA). */
    public static PrivateKey readPrivateKey(String pem) {
        var blocks = blocks(pem, "PRIVATE KEY");
        if (blocks.size() != 1) {
            throw new PkiException(
                    blocks.isEmpty()
                            ? "no '-----BEGIN PRIVATE KEY-----' block (PKCS#8; 'RSA PRIVATE KEY' or 'EC PRIVATE KEY' is PKCS#1/SEC1:"
                                    + " convert it with openssl pkcs8 -topk8 -nocrypt)"
                            : blocks.size() + " private keys, expected one");
        }
        byte[] der = blocks.get(0);
        String algorithm;
        try {
            var oid = PrivateKeyInfo.getInstance(der).getPrivateKeyAlgorithm().getAlgorithm();
            if (oid.equals(X9ObjectIdentifiers.id_ecPublicKey)) {
                algorithm = "EC";
            } else if (oid.equals(PKCSObjectIdentifiers.rsaEncryption)) {
                algorithm = "RSA";
            } else {
                throw new PkiException("a private key of algorithm " + oid + ": only EC and RSA keys are supported");
            }
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (IllegalArgumentException | InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
            throw new PkiException("not a PKCS#8 private key: " + e.getMessage(), e);
        }
    }

    private static List<byte[]> blocks(String pem, String type) {
        var out = new ArrayList<byte[]>();
        if (pem == null) {
            return out;
        }
        var m = BLOCK.matcher(pem);
        while (m.find()) {
            if (m.group(1).equals(type)) {
                try {
                    out.add(Base64.getMimeDecoder().decode(m.group(2)));
                } catch (IllegalArgumentException e) {
                    throw new PkiException("a " + type + " block that is not base64: " + e.getMessage(), e);
                }
            }
        }
        return out;
    }

    private static String block(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + LINES.encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
