package dev.dht.node.tls;

import dev.dht.node.config.FilePoller;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

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
    private static final Logger log = LoggerFactory.getLogger(MemberTls.class);
    private static final String[] PROTOCOLS = {"TLSv1.3"};

    /** The material in force: its context, generation, and the certificate's expiry (for metrics). */
    private record Material(SSLContext context, long generation, long notAfterMillis) {
    }

    private final Path cert;
    private final Path key;
    private final Path ca;
    private volatile Material material;
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong reloadFailures = new AtomicLong();
    private final AtomicLong handshakeFailures = new AtomicLong();
    private final FilePoller poller;

    private MemberTls(Path cert, Path key, Path ca, Material material, List<byte[]> contents, Duration interval) {
        this.cert = cert;
        this.key = key;
        this.ca = ca;
        this.material = material;
        this.poller = new FilePoller("dht-member-tls", List.of(cert, key, ca), contents, interval, this::reload);
    }

    /**
     * Loads and proves the files, and watches them. IllegalArgumentException with the reason if this node cannot
     * serve TLS with them (it must not start).
     */
    public static MemberTls open(Path cert, Path key, Path ca, Duration interval) {
        List<byte[]> contents;
        try {
            contents = FilePoller.read(List.of(cert, key, ca));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the member TLS files: " + e, e);
        }
        Material m = load(cert, key, ca, contents, 1);
        log.info("member TLS from {} (key {}, CAs {}): certificate valid until {}", cert, key, ca,
                java.time.Instant.ofEpochMilli(m.notAfterMillis()));
        return new MemberTls(cert, key, ca, m, contents, interval);
    }

    private void reload(List<byte[]> contents) {
        Material current = material;
        try {
            Material next = load(cert, key, ca, contents, current.generation() + 1);
            material = next;
            reloads.incrementAndGet();
            log.info("member TLS files changed: generation {} in force, certificate valid until {}; connections of "
                    + "older generations close once idle", next.generation(),
                    java.time.Instant.ofEpochMilli(next.notAfterMillis()));
        } catch (IllegalArgumentException e) {
            reloadFailures.incrementAndGet();
            log.warn("member TLS files changed but cannot be used, keeping generation {}: {}", current.generation(),
                    e.getMessage());
        }
    }

    private static Material load(Path certFile, Path keyFile, Path caFile, List<byte[]> contents, long generation) {
        List<X509Certificate> chain = PemFiles.certificates("--member-tls-cert " + certFile, contents.get(0));
        PrivateKey privateKey = PemFiles.privateKey("--member-tls-key " + keyFile, contents.get(1));
        List<X509Certificate> authorities = PemFiles.certificates("--member-tls-ca " + caFile, contents.get(2));
        SSLContext context;
        try {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            for (int i = 0; i < authorities.size(); i++) {
                trusted.setCertificateEntry("ca-" + i, authorities.get(i));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(trusted);
            context = SSLContext.getInstance("TLSv1.3");
            context.init(new KeyManager[]{new MemberKeyManager(privateKey, chain)}, tmf.getTrustManagers(), null);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("the member TLS files cannot make a TLS context: " + e.getMessage(), e);
        }
        Material m = new Material(context, generation, chain.get(0).getNotAfter().getTime());
        try {
            selfHandshake(m);
        } catch (SSLException | RuntimeException e) {
            throw new IllegalArgumentException("a TLS handshake with these member files fails (" + e.getMessage()
                    + "): the key must match the certificate, the certificate be valid now, issued by a CA in"
                    + " --member-tls-ca, and allow serverAuth and clientAuth", e);
        }
        return m;
    }

    /** A whole handshake in memory, this member's material on both sides: proves it can serve and call. */
    private static void selfHandshake(Material m) throws SSLException {
        SSLEngine client = configure(m.context().createSSLEngine("self", 0), true);
        SSLEngine server = configure(m.context().createSSLEngine(), false);
        int size = Math.max(client.getSession().getPacketBufferSize(), server.getSession().getPacketBufferSize());
        ByteBuffer toServer = ByteBuffer.allocate(4 * size);
        ByteBuffer toClient = ByteBuffer.allocate(4 * size);
        ByteBuffer sink = ByteBuffer.allocate(4 * size);
        ByteBuffer empty = ByteBuffer.allocate(0);
        client.beginHandshake();
        server.beginHandshake();
        for (int step = 0; step < 200; step++) {
            if (!handshaking(client) && !handshaking(server)) {
                return;
            }
            step(client, empty, toServer, toClient, sink);
            step(server, empty, toClient, toServer, sink);
        }
        throw new SSLException("the handshake did not finish");
    }

    private static void step(SSLEngine e, ByteBuffer empty, ByteBuffer out, ByteBuffer in, ByteBuffer sink)
            throws SSLException {
        switch (e.getHandshakeStatus()) {
            case NEED_TASK -> {
                Runnable t;
                while ((t = e.getDelegatedTask()) != null) {
                    t.run();
                }
            }
            case NEED_WRAP -> e.wrap(empty, out);
            case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                in.flip();
                SSLEngineResult r = e.unwrap(in, sink);
                in.compact();
                sink.clear();
                if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                    throw new SSLException("closed during the handshake");
                }
            }
            default -> {
                // finished on this side
            }
        }
    }

    private static boolean handshaking(SSLEngine e) {
        SSLEngineResult.HandshakeStatus hs = e.getHandshakeStatus();
        return hs != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && hs != SSLEngineResult.HandshakeStatus.FINISHED;
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
        return configure(material.context().createSSLEngine(), false);
    }

    /** An engine for a connection to a member. */
    public SSLEngine clientEngine(String host, int port) {
        return configure(material.context().createSSLEngine(host, port), true);
    }

    /** A blocking TLS socket over a connected one (the range streams), handshake done. */
    public Socket wrap(Socket plain, String host, int port) throws IOException {
        SSLSocket s = (SSLSocket) material.context().getSocketFactory().createSocket(plain, host, port, true);
        SSLParameters p = s.getSSLParameters();
        p.setProtocols(PROTOCOLS);
        s.setSSLParameters(p);
        s.startHandshake();
        return s;
    }

    /** The generation of the material in force (connections of older ones are closed when idle). */
    public long generation() {
        return material.generation();
    }

    public long notAfterMillis() {
        return material.notAfterMillis();
    }

    public long reloads() {
        return reloads.get();
    }

    public long reloadFailures() {
        return reloadFailures.get();
    }

    /** A handshake with a peer failed (no certificate, an untrusted one, not TLS at all). */
    public void handshakeFailed(String peer, Throwable why) {
        long n = handshakeFailures.incrementAndGet();
        if (n == 1 || n % 100 == 0) {
            log.warn("member TLS handshake with {} failed ({} so far, dht_member_tls_handshake_failures_total): {}",
                    peer, n, describe(why));
        }
    }

    /**
     * The exception with its causes: the JDK's own messages are often generic ("Unexpected exception") and the
     * reason is in the cause ("Unexpected plaintext alert received: ... user_canceled").
     */
    static String describe(Throwable why) {
        StringBuilder s = new StringBuilder(why.toString());
        int depth = 0;
        for (Throwable c = why.getCause(); c != null && c != why && depth < 5; c = c.getCause(), depth++) {
            s.append("; caused by ").append(c);
        }
        return s.toString();
    }

    public long handshakeFailures() {
        return handshakeFailures.get();
    }

    @Override
    public void close() {
        poller.close();
    }
}
