package dev.dht.node.tls;

import dev.dht.node.config.FilePoller;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both ports' TLS share ({@link MemberTls}, {@link ClientTls}): PEM files re-read when their content changes,
 * each load proved by an in-memory handshake before it is used and counted as a new generation, a load that cannot
 * be used keeping the material in force, and the counters the metrics show. What a load makes of the files (which
 * key usages, whose certificates are asked for) is the plane's {@link Loader}.
 */
final class ReloadingTls implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReloadingTls.class);

    /** The material in force: its context, generation, and the certificate's expiry (for metrics). */
    record Material(SSLContext context, long generation, long notAfterMillis) {}

    /** Makes and proves the material from the files' contents; IllegalArgumentException says what is wrong. */
    @FunctionalInterface
    interface Loader {
        Material load(List<byte[]> contents, long generation);
    }

    private final String plane;
    private final Loader loader;
    private volatile Material material;
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong reloadFailures = new AtomicLong();
    private final AtomicLong handshakeFailures = new AtomicLong();
    private final FilePoller poller;

    private ReloadingTls(
            String plane,
            List<Path> files,
            Loader loader,
            Material material,
            List<byte[]> contents,
            Duration interval) {
        this.plane = plane;
        this.loader = loader;
        this.material = material;
        this.poller = new FilePoller("dht-" + plane + "-tls", files, contents, interval, this::reload);
    }

    /**
     * Loads and proves the files, and watches them. IllegalArgumentException with the reason if the node cannot
     * serve TLS with them (it must not start).
     *
     * @param plane "member" or "client": names the thread, the log lines and the metrics
     */
    static ReloadingTls open(String plane, List<Path> files, Loader loader, Duration interval) {
        List<byte[]> contents;
        try {
            contents = FilePoller.read(files);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the " + plane + " TLS files: " + e, e);
        }
        Material m = loader.load(contents, 1);
        log.info("{} TLS from {}: certificate valid until {}", plane, files, Instant.ofEpochMilli(m.notAfterMillis()));
        return new ReloadingTls(plane, files, loader, m, contents, interval);
    }

    private void reload(List<byte[]> contents) {
        Material current = material;
        try {
            Material next = loader.load(contents, current.generation() + 1);
            material = next;
            reloads.incrementAndGet();
            log.info(
                    "{} TLS files changed: generation {} in force, certificate valid until {}; connections of older"
                            + " generations end once idle",
                    plane,
                    next.generation(),
                    Instant.ofEpochMilli(next.notAfterMillis()));
        } catch (IllegalArgumentException e) {
            reloadFailures.incrementAndGet();
            log.warn(
                    "{} TLS files changed but cannot be used, keeping generation {}: {}",
                    plane,
                    current.generation(),
                    e.getMessage());
        }
    }

    Material material() {
        return material;
    }

    long generation() {
        return material.generation();
    }

    long notAfterMillis() {
        return material.notAfterMillis();
    }

    long reloads() {
        return reloads.get();
    }

    long reloadFailures() {
        return reloadFailures.get();
    }

    long handshakeFailures() {
        return handshakeFailures.get();
    }

    /** A handshake with a peer failed: counted, and logged for the first and every 100th. */
    void handshakeFailed(String peer, Throwable why) {
        long n = handshakeFailures.incrementAndGet();
        if (n == 1 || n % 100 == 0) {
            log.warn(
                    "{} TLS handshake with {} failed ({} so far, dht_{}_tls_handshake_failures_total): {}",
                    plane,
                    peer,
                    n,
                    plane,
                    describe(why));
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

    @Override
    public void close() {
        poller.close();
    }

    // ---- what the planes' loaders share ----------------------------------------------------------------------

    /**
     * A TLS 1.3 context with this key (null: none to present) that trusts exactly these CAs (null: asks for no
     * certificate, so trusts none).
     */
    static SSLContext context(PrivateKey key, List<X509Certificate> chain, List<X509Certificate> trusted) {
        try {
            SSLContext context = SSLContext.getInstance("TLSv1.3");
            context.init(
                    key == null ? null : new KeyManager[] {new MemberKeyManager(key, chain)},
                    trusted == null ? new TrustManager[] {NO_CLIENTS} : trustManagers(trusted),
                    null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("the TLS files cannot make a TLS context: " + e.getMessage(), e);
        }
    }

    /** The trust of a server that asks for no client certificate: any certificate offered anyway is refused. */
    private static final javax.net.ssl.X509TrustManager NO_CLIENTS = new javax.net.ssl.X509TrustManager() {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType)
                throws java.security.cert.CertificateException {
            throw new java.security.cert.CertificateException("this port takes no client certificates");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType)
                throws java.security.cert.CertificateException {
            throw new java.security.cert.CertificateException("this context trusts no server");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    };

    private static TrustManager[] trustManagers(List<X509Certificate> trusted)
            throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        for (int i = 0; i < trusted.size(); i++) {
            store.setCertificateEntry("ca-" + i, trusted.get(i));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(store);
        return tmf.getTrustManagers();
    }

    /** A whole handshake in memory between these two engines (client mode set on the first). */
    static void handshake(SSLEngine client, SSLEngine server) throws SSLException {
        int size = Math.max(
                client.getSession().getPacketBufferSize(), server.getSession().getPacketBufferSize());
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
}
