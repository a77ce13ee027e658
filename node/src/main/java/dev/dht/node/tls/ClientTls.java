package dev.dht.node.tls;

import dev.dht.node.config.SecuritySettings.ClientCertificates;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * TLS on the client port (docs/security.md, "Client TLS"): the node's server certificate and PKCS#8 key, and, with
 * client certificates, the CAs whose client certificates it accepts; PEM files re-read when their content changes,
 * as the member port's ({@link ReloadingTls}: the same loading, proof, generations and connection code).
 *
 * <ul>
 *   <li>TLS 1.3 only, like the member port: every client library of the last years speaks it (curl, Python, Go,
 *       the JDK, k6, oha).</li>
 *   <li>{@link ClientCertificates#REQUIRED}: a client without a certificate of a trusted CA fails the handshake (TLS alert
 *       certificate_required or bad_certificate); {@link ClientCertificates#OPTIONAL}: a certificate is asked for and checked if
 *       presented (an untrusted one fails the handshake), else the request needs a token; {@link ClientCertificates#NONE}: none is
 *       asked for.</li>
 *   <li>A load must complete an in-memory handshake of the server material with a client that trusts it, and the
 *       certificate must be valid now and allow serverAuth: a key that does not match, an expired certificate, the
 *       wrong key usage stop the node at start or keep the material in force on a reload.</li>
 * </ul>
 */
public final class ClientTls implements AutoCloseable {
    private static final String[] PROTOCOLS = {"TLSv1.3"};
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String ANY_USAGE = "2.5.29.37.0";

    private final ReloadingTls files;
    private final ClientCertificates auth;

    private ClientTls(ReloadingTls files, ClientCertificates auth) {
        this.files = files;
        this.auth = auth;
    }

    /**
     * Loads and proves the files, and watches them. IllegalArgumentException with the reason if the node cannot
     * serve TLS with them (it must not start).
     *
     * @param ca   the CAs of client certificates (PEM), or null with {@link ClientCertificates#NONE}
     */
    public static ClientTls open(Path cert, Path key, Path ca, ClientCertificates auth, Duration interval) {
        if ((ca == null) != (auth == ClientCertificates.NONE)) {
            throw new IllegalArgumentException("client certificates need the CAs that issue them, and only then");
        }
        List<Path> paths = ca == null ? List.of(cert, key) : List.of(cert, key, ca);
        return new ClientTls(
                ReloadingTls.open(
                        "client",
                        paths,
                        (contents, generation) -> load(cert, key, ca, auth, contents, generation),
                        interval),
                auth);
    }

    private static ReloadingTls.Material load(
            Path certFile, Path keyFile, Path caFile, ClientCertificates auth, List<byte[]> contents, long generation) {
        List<X509Certificate> chain = PemFiles.certificates("--client-tls-cert " + certFile, contents.get(0));
        PrivateKey privateKey = PemFiles.privateKey("--client-tls-key " + keyFile, contents.get(1));
        List<X509Certificate> authorities =
                caFile == null ? null : PemFiles.certificates("--client-tls-ca " + caFile, contents.get(2));
        X509Certificate leaf = chain.get(0);
        try {
            leaf.checkValidity();
            List<String> usages = leaf.getExtendedKeyUsage();
            if (usages != null && !usages.contains(SERVER_AUTH) && !usages.contains(ANY_USAGE)) {
                throw new IllegalArgumentException("--client-tls-cert " + certFile + " does not allow serverAuth"
                        + " (extended key usage " + usages + ")");
            }
        } catch (CertificateException e) {
            throw new IllegalArgumentException(
                    "--client-tls-cert " + certFile + " is not valid now: " + e.getMessage(), e);
        }
        SSLContext context = ReloadingTls.context(privateKey, chain, authorities);
        // A client that trusts what the node presents (its chain, or the issuer if the CA file holds it): the
        // handshake proves the key signs for the certificate.
        List<X509Certificate> anchors = new ArrayList<>(chain);
        if (authorities != null) {
            anchors.addAll(authorities);
        }
        SSLEngine client = ReloadingTls.context(null, List.of(), anchors).createSSLEngine("self", 0);
        client.setUseClientMode(true);
        try {
            ReloadingTls.handshake(client, configure(context.createSSLEngine(), ClientCertificates.NONE));
        } catch (SSLException | RuntimeException e) {
            throw new IllegalArgumentException(
                    "a TLS handshake with these client-port files fails (" + e.getMessage()
                            + "): the key must match the certificate",
                    e);
        }
        return new ReloadingTls.Material(context, generation, leaf.getNotAfter().getTime());
    }

    private static SSLEngine configure(SSLEngine engine, ClientCertificates auth) {
        engine.setUseClientMode(false);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(PROTOCOLS);
        switch (auth) {
            case REQUIRED -> p.setNeedClientAuth(true);
            case OPTIONAL -> p.setWantClientAuth(true);
            case NONE -> {
                // no certificate asked for
            }
        }
        engine.setSSLParameters(p);
        return engine;
    }

    /** An engine for an accepted client-port connection. */
    public SSLEngine serverEngine() {
        return configure(files.material().context().createSSLEngine(), auth);
    }

    /** The certificate a client presented on this (handshaken) engine, or null. */
    public static X509Certificate peerCertificate(SSLEngine engine) {
        try {
            Certificate[] chain = engine.getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
        } catch (SSLPeerUnverifiedException none) {
            return null;
        }
    }

    public ClientCertificates auth() {
        return auth;
    }

    /** The generation of the material in force (connections of older ones end after their next answer). */
    public long generation() {
        return files.generation();
    }

    public long notAfterMillis() {
        return files.notAfterMillis();
    }

    public long reloadFailures() {
        return files.reloadFailures();
    }

    /** A handshake with a client failed (no or an untrusted certificate, not TLS at all). */
    public void handshakeFailed(String peer, Throwable why) {
        files.handshakeFailed(peer, why);
    }

    public long handshakeFailures() {
        return files.handshakeFailures();
    }

    @Override
    public void close() {
        files.close();
    }
}
