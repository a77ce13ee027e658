package dev.dht.node.tls;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * Mutual TLS between members (docs/security.md, "TLS"): the member's certificate and PKCS#8 key, and the CAs whose
 * certificates it trusts, from PEM files that are re-read when their content changes, so that a renewal or a CA
 * rotation needs no restart. Every connection of either side presents a certificate and requires one from a
 * trusted CA (TLS 1.3 only); host names are not checked: any holder of a certificate from the cluster's CA is a
 * member, so the CA must be the cluster's own.
 *
 * <p>Each load is proved before it is used: an in-memory handshake of the new material with itself (client and
 * server) must succeed, which catches a key that does not match its certificate, a certificate the CA file does
 * not trust, an expired one, a missing extended key usage. At start a failure stops the node with the reason; on a
 * reload it keeps the material in force (new files half-written during a rotation are tried again at the next
 * poll). Each load is a new generation: connections made with an older one are closed once idle, so a dropped CA
 * stops being honoured within an idle timeout.
 */
public final class MemberTls implements AutoCloseable {
    private static final String[] PROTOCOLS = {"TLSv1.3"};

    private final ReloadingTls files;

    private MemberTls(ReloadingTls files) {
        this.files = files;
    }

    /**
     * Loads and proves the files, and watches them. IllegalArgumentException with the reason if this node cannot
     * serve TLS with them (it must not start).
     */
    public static MemberTls open(Path cert, Path key, Path ca, Duration interval) {
        return new MemberTls(ReloadingTls.open(
                "member",
                List.of(cert, key, ca),
                (contents, generation) -> load(cert, key, ca, contents, generation),
                interval));
    }

    private static ReloadingTls.Material load(
            Path certFile, Path keyFile, Path caFile, List<byte[]> contents, long generation) {
        List<X509Certificate> chain = PemFiles.certificates("--member-tls-cert " + certFile, contents.get(0));
        PrivateKey privateKey = PemFiles.privateKey("--member-tls-key " + keyFile, contents.get(1));
        List<X509Certificate> authorities = PemFiles.certificates("--member-tls-ca " + caFile, contents.get(2));
        SSLContext context = ReloadingTls.context(privateKey, chain, authorities);
        ReloadingTls.Material m = new ReloadingTls.Material(
                context, generation, chain.get(0).getNotAfter().getTime());
        try {
            // this member's material on both sides: proves it can serve and call
            ReloadingTls.handshake(
                    configure(context.createSSLEngine("self", 0), true), configure(context.createSSLEngine(), false));
        } catch (SSLException | RuntimeException e) {
            throw new IllegalArgumentException(
                    "a TLS handshake with these member files fails (" + e.getMessage()
                            + "): the key must match the certificate, the certificate be valid now, issued by a CA in"
                            + " --member-tls-ca, and allow serverAuth and clientAuth",
                    e);
        }
        return m;
    }

    private static SSLEngine configure(SSLEngine engine, boolean client) {
        engine.setUseClientMode(client);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(PROTOCOLS);
        if (!client) {
            p.setNeedClientAuth(true);
        }
        engine.setSSLParameters(p);
        return engine;
    }

    /** An engine for an accepted member-port connection (needs the peer's certificate). */
    public SSLEngine serverEngine() {
        return configure(files.material().context().createSSLEngine(), false);
    }

    /** An engine for a connection to a member. */
    public SSLEngine clientEngine(String host, int port) {
        return configure(files.material().context().createSSLEngine(host, port), true);
    }

    /** A blocking TLS socket over a connected one (the range streams), handshake done. */
    public Socket wrap(Socket plain, String host, int port) throws IOException {
        SSLSocket s = (SSLSocket) files.material().context().getSocketFactory().createSocket(plain, host, port, true);
        SSLParameters p = s.getSSLParameters();
        p.setProtocols(PROTOCOLS);
        s.setSSLParameters(p);
        s.startHandshake();
        return s;
    }

    /** The generation of the material in force (connections of older ones are closed when idle). */
    public long generation() {
        return files.generation();
    }

    public long notAfterMillis() {
        return files.notAfterMillis();
    }

    public long reloads() {
        return files.reloads();
    }

    public long reloadFailures() {
        return files.reloadFailures();
    }

    /** A handshake with a peer failed (no certificate, an untrusted one, not TLS at all). */
    public void handshakeFailed(String peer, Throwable why) {
        files.handshakeFailed(peer, why);
    }

    /**
     * The exception with its causes: the JDK's own messages are often generic ("Unexpected exception") and the
     * reason is in the cause ("Unexpected plaintext alert received: ... user_canceled").
     */
    static String describe(Throwable why) {
        return ReloadingTls.describe(why);
    }

    public long handshakeFailures() {
        return files.handshakeFailures();
    }

    @Override
    public void close() {
        files.close();
    }
}
