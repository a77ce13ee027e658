package dev.dht.node.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority for tests of the member port's mutual TLS: EC P-256 keys, a self-signed CA, member
 * certificates it signs (serverAuth and clientAuth, names localhost and 127.0.0.1), written as the PEM files a
 * node reads (certificate, PKCS#8 key, CA), the way an operator or cert-manager would.
 */
public final class TestCertificates {
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    private final String name;
    private final KeyPair key;
    private final X509CertificateHolder certificate;

    private TestCertificates(String name, KeyPair key, X509CertificateHolder certificate) {
        this.name = name;
        this.key = key;
        this.certificate = certificate;
    }

    /** A new CA, valid from an hour ago for a day. */
    public static TestCertificates authority(String name) {
        KeyPair key = keyPair();
        X500Name subject = new X500Name("CN=" + name);
        try {
            var builder = new JcaX509v3CertificateBuilder(
                            subject, serial(), from(), until(Duration.ofDays(1)), subject, key.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            return new TestCertificates(name, key, builder.build(signer(key)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The files of one member: where they are. */
    public record Member(Path cert, Path key, Path ca) {
        /** The node's command-line options for them. */
        public java.util.List<String> args() {
            return java.util.List.of(
                    "--member-tls-cert",
                    cert.toString(),
                    "--member-tls-key",
                    key.toString(),
                    "--member-tls-ca",
                    ca.toString());
        }
    }

    /**
     * Issues a member certificate and writes {@code dir/tls.crt}, {@code dir/tls.key} and {@code dir/ca.crt} (this
     * CA and the {@code alsoTrusted} ones), each replaced atomically.
     */
    public Member issue(Path dir, String member, Duration validFor, TestCertificates... alsoTrusted) {
        return issue(
                dir,
                member,
                validFor,
                new GeneralName[] {
                    new GeneralName(GeneralName.dNSName, "localhost"),
                    new GeneralName(GeneralName.iPAddress, "127.0.0.1")
                },
                alsoTrusted);
    }

    /** Issues a certificate valid for a day that names only the host dnsName (a server elsewhere, for a test). */
    public Member issueNaming(Path dir, String member, String dnsName) {
        return issue(
                dir, member, Duration.ofDays(1), new GeneralName[] {new GeneralName(GeneralName.dNSName, dnsName)});
    }

    /**
     * A client port's server certificate valid for a day, naming localhost, 127.0.0.1 and these addresses (a test
     * that connects from this machine's non-loopback address, to be a remote peer, dials that address).
     */
    public Member issueServer(Path dir, String name, java.net.InetAddress... addresses) {
        java.util.List<GeneralName> names = new java.util.ArrayList<>(java.util.List.of(
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
        for (java.net.InetAddress a : addresses) {
            names.add(new GeneralName(GeneralName.iPAddress, a.getHostAddress()));
        }
        return write(dir, "CN=" + name, Duration.ofDays(1), names.toArray(new GeneralName[0]), BOTH);
    }

    /**
     * A client certificate whose subject is {@code CN=<name>} and, unless scope is null, {@code O=<scope>} (the
     * scope the client port grants it), valid for {@code validFor} (negative: expired that long ago).
     */
    public Member issueClient(Path dir, String name, String scope, Duration validFor) {
        return write(
                dir,
                scope == null ? "CN=" + name : "O=" + scope + ",CN=" + name,
                validFor,
                new GeneralName[] {new GeneralName(GeneralName.dNSName, name)},
                new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth});
    }

    private Member issue(
            Path dir, String member, Duration validFor, GeneralName[] names, TestCertificates... alsoTrusted) {
        return write(dir, "CN=" + member, validFor, names, BOTH, alsoTrusted);
    }

    private static final KeyPurposeId[] BOTH = {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth};

    private Member write(
            Path dir,
            String subject,
            Duration validFor,
            GeneralName[] names,
            KeyPurposeId[] usages,
            TestCertificates... alsoTrusted) {
        KeyPair memberKey = keyPair();
        try {
            var builder = new JcaX509v3CertificateBuilder(
                            certificate.getSubject(),
                            serial(),
                            from(validFor),
                            until(validFor),
                            new X500Name(subject),
                            memberKey.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(usages))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            X509CertificateHolder cert = builder.build(signer(key));
            Files.createDirectories(dir);
            StringBuilder ca = new StringBuilder(pem("CERTIFICATE", certificate.getEncoded()));
            for (TestCertificates other : alsoTrusted) {
                ca.append(pem("CERTIFICATE", other.certificate.getEncoded()));
            }
            Member files = new Member(dir.resolve("tls.crt"), dir.resolve("tls.key"), dir.resolve("ca.crt"));
            write(files.key(), pem("PRIVATE KEY", memberKey.getPrivate().getEncoded()));
            write(files.cert(), pem("CERTIFICATE", cert.getEncoded()));
            write(files.ca(), ca.toString());
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Issues a member certificate valid for a day. */
    public Member issue(Path dir, String member) {
        return issue(dir, member, Duration.ofDays(1));
    }

    /** The files of members 0..count-1 of a cluster (named member-i, under dir/tls<i>), valid for a day. */
    public java.util.List<Member> issueMembers(Path dir, int count) {
        java.util.List<Member> files = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            files.add(issue(dir.resolve("tls" + i), "member-" + i));
        }
        return files;
    }

    /** Rewrites only the trusted CAs of a member's files (a CA rotation's first or last phase). */
    public static void trust(Member files, TestCertificates... authorities) {
        writeCas(files.ca(), authorities);
    }

    /** Writes these CAs' certificates into one PEM file (atomically). */
    public static void writeCas(Path file, TestCertificates... authorities) {
        StringBuilder ca = new StringBuilder();
        for (TestCertificates a : authorities) {
            try {
                ca.append(pem("CERTIFICATE", a.certificate.getEncoded()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        write(file, ca.toString());
    }

    @Override
    public String toString() {
        return name;
    }

    private static void write(Path file, String content) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, content, StandardCharsets.US_ASCII);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static KeyPair keyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ContentSigner signer(KeyPair key) {
        try {
            return new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate());
        } catch (OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static BigInteger serial() {
        return BigInteger.valueOf(SERIAL.incrementAndGet());
    }

    private static Date from() {
        return Date.from(Instant.now().minus(Duration.ofHours(1)));
    }

    /** From an hour ago, or, for a certificate that expired already, from an hour before its end. */
    private static Date from(Duration validFor) {
        return validFor.isNegative() ? Date.from(Instant.now().plus(validFor).minus(Duration.ofHours(1))) : from();
    }

    private static Date until(Duration validFor) {
        return Date.from(Instant.now().plus(validFor));
    }
}
