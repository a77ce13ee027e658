package dev.dht.operator.security.pki;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/** A certificate and its private key: a CA that signs, or a member that proves who it is. */
public record Credential(X509Certificate certificate, PrivateKey key) {
    public String certificatePem() {
        return Pem.certificate(certificate);
    }

    public String keyPem() {
        return Pem.privateKey(key);
    }

    /** Reads a certificate (the first block of {@code certificatePem}) and its PKCS#8 key, and checks they match. */
    public static Credential read(String certificatePem, String keyPem) {
        var certificate = Pem.readCertificates(certificatePem).get(0);
        var key = Pem.readPrivateKey(keyPem);
        if (!Certificates.matches(certificate, key)) {
            throw new PkiException("the private key does not belong to the certificate "
                    + certificate.getSubjectX500Principal().getName());
        }
        return new Credential(certificate, key);
    }
}
