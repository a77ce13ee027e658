package dev.dht.operator.security.pki;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Makes the certificates of a cluster's member port and client port: a self-signed CA per port and cluster, the
 * certificates the members serve, and client certificates. Keys are EC P-256 (small, fast to make, supported by
 * OpenSSL and the JDK); signatures SHA256withECDSA by the JDK's provider. A member certificate serves both ends of a
 * member connection (extended key usage serverAuth and clientAuth), since every member is a server to its peers and
 * a client of them; a client certificate allows clientAuth only.
 *
 * <p>Certificates start {@link #BACKDATE} before {@code now}, so that a node whose clock is a little behind the
 * operator's does not refuse a fresh one as not yet valid.
 */
public final class CertificateAuthority {
    public static final Duration BACKDATE = Duration.ofHours(1);
    private static final String SIGNATURE = "SHA256withECDSA";

    private final SecureRandom random;

    public CertificateAuthority(SecureRandom random) {
        this.random = random;
    }

    /** A new self-signed CA: may sign certificates, nothing else (no intermediate CAs under it). */
    public Credential createCa(String commonName, Instant now, Duration validity) {
        var keys = newKeyPair();
        var subject = name(commonName);
        try {
            var utils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                            subject,
                            serial(),
                            Date.from(now.minus(BACKDATE)),
                            Date.from(now.plus(validity)),
                            subject,
                            keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(
                            Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(keys.getPublic()));
            return new Credential(sign(builder, keys.getPrivate()), keys.getPrivate());
        } catch (CertIOException | GeneralSecurityException e) {
            throw new PkiException("cannot make the CA certificate " + commonName + ": " + e.getMessage(), e);
        }
    }

    /**
     * A certificate signed by {@code ca} for the given DNS names, valid from now for {@code validity} but never beyond
     * the CA's own end: a member's (serverAuth and clientAuth: every member is server and client of its peers).
     */
    public Credential issue(Credential ca, String commonName, List<String> dnsNames, Instant now, Duration validity) {
        return issue(ca, commonName, dnsNames, List.of(), now, validity);
    }

    /**
     * As {@link #issue(Credential, String, List, Instant, Duration)}, naming IP addresses too (the client port's
     * certificate names 127.0.0.1: port-forwards and the profiler sidecar connect there).
     */
    public Credential issue(
            Credential ca,
            String commonName,
            List<String> dnsNames,
            List<String> ipAddresses,
            Instant now,
            Duration validity) {
        if (dnsNames.isEmpty()) {
            throw new IllegalArgumentException("a member certificate needs at least one DNS name");
        }
        var names = new java.util.ArrayList<GeneralName>();
        dnsNames.forEach(n -> names.add(new GeneralName(GeneralName.dNSName, n)));
        ipAddresses.forEach(ip -> names.add(new GeneralName(GeneralName.iPAddress, ip)));
        return sign(
                ca,
                name(commonName),
                names,
                new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth},
                now,
                validity,
                String.valueOf(dnsNames));
    }

    /**
     * A client certificate for the client port: subject {@code O=<scope>, CN=<commonName>} (the node grants the scope
     * its O names), clientAuth only, no alternative names.
     */
    public Credential issueClient(Credential ca, String commonName, String scope, Instant now, Duration validity) {
        var subject = new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.O, scope)
                .addRDN(BCStyle.CN, commonName.length() > 64 ? commonName.substring(0, 64) : commonName)
                .build();
        return sign(
                ca,
                subject,
                List.of(),
                new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth},
                now,
                validity,
                "client " + commonName);
    }

    private Credential sign(
            Credential ca,
            X500Name subject,
            List<GeneralName> names,
            KeyPurposeId[] usages,
            Instant now,
            Duration validity,
            String what) {
        var keys = newKeyPair();
        Instant end = now.plus(validity);
        Instant caEnd = ca.certificate().getNotAfter().toInstant();
        if (end.isAfter(caEnd)) {
            end = caEnd;
        }
        try {
            var utils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                            ca.certificate(),
                            serial(),
                            Date.from(now.minus(BACKDATE)),
                            Date.from(end),
                            subject,
                            keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(usages))
                    .addExtension(
                            Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(keys.getPublic()))
                    .addExtension(
                            Extension.authorityKeyIdentifier,
                            false,
                            utils.createAuthorityKeyIdentifier(ca.certificate()));
            if (!names.isEmpty()) {
                builder.addExtension(
                        Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
            }
            return new Credential(sign(builder, ca.key()), keys.getPrivate());
        } catch (CertIOException | GeneralSecurityException e) {
            throw new PkiException("cannot issue a certificate for " + what + ": " + e.getMessage(), e);
        }
    }

    private KeyPair newKeyPair() {
        try {
            var generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), random);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new PkiException("the JDK cannot make EC P-256 keys: " + e.getMessage(), e);
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, java.security.PrivateKey key)
            throws GeneralSecurityException {
        try {
            var signer = new JcaContentSignerBuilder(SIGNATURE).build(key);
            return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    /** A positive 127-bit serial: unique in practice, and within the 20 octets RFC 5280 allows. */
    private BigInteger serial() {
        return new BigInteger(127, random).setBit(0);
    }

    private static X500Name name(String commonName) {
        // X.520 allows 64 characters; the names that matter are in the SAN.
        String cn = commonName.length() > 64 ? commonName.substring(0, 64) : commonName;
        return new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.O, "dht")
                .addRDN(BCStyle.CN, cn)
                .build();
    }
}
