package dev.dht.bench;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * {@link TlsEngineBench}'s engines: a member's files (tls.crt, tls.key, ca.crt) loaded as MemberTls does (one key
 * offered for both sides, the JDK's PKIX trust), TLS 1.3 only, the server requiring a client certificate.
 */
final class TlsBenchEngines {
    private TlsBenchEngines() {}

    static TlsEngineBench.Engines of(String provider, Path dir) throws Exception {
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        X509Certificate[] chain;
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        try (var in = Files.newInputStream(dir.resolve("tls.crt"));
                var ca = Files.newInputStream(dir.resolve("ca.crt"))) {
            chain = cf.generateCertificates(in).toArray(new X509Certificate[0]);
            int i = 0;
            for (var c : cf.generateCertificates(ca)) {
                trusted.setCertificateEntry("ca-" + i++, c);
            }
        }
        String pem = Files.readString(dir.resolve("tls.key")).replaceAll("-----[A-Z ]+-----|\\s", "");
        PrivateKey key = KeyFactory.getInstance(chain[0].getPublicKey().getAlgorithm())
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(trusted);
        X509ExtendedTrustManager trust = new Tls13Trust((X509ExtendedTrustManager) tmf.getTrustManagers()[0]);
        X509ExtendedKeyManager keys = new OneKey(key, chain);
        if (provider.equals("netty")) {
            return netty(keys, trust);
        }
        SSLContext context = switch (provider) {
            case "jdk" -> SSLContext.getInstance("TLSv1.3");
            case "conscrypt" -> SSLContext.getInstance("TLSv1.3", (Provider) org.conscrypt.Conscrypt.newProvider());
            default -> throw new IllegalArgumentException("provider: jdk, conscrypt or netty, not " + provider);
        };
        context.init(new KeyManager[] {keys}, new TrustManager[] {trust}, null);
        return new TlsEngineBench.Engines() {
            @Override
            public SSLEngine client() {
                return configure(context.createSSLEngine("member", 1), true);
            }

            @Override
            public SSLEngine server() {
                return configure(context.createSSLEngine(), false);
            }
        };
    }

    private static SSLEngine configure(SSLEngine e, boolean client) {
        e.setUseClientMode(client);
        SSLParameters p = e.getSSLParameters();
        p.setProtocols(new String[] {"TLSv1.3"});
        p.setNeedClientAuth(!client);
        e.setSSLParameters(p);
        return e;
    }

    /** netty-tcnative's engine (SslProvider.OPENSSL: released by the garbage collector, as an SSLEngine must be). */
    private static TlsEngineBench.Engines netty(X509ExtendedKeyManager keys, X509ExtendedTrustManager trust)
            throws Exception {
        if (!OpenSsl.isAvailable()) {
            throw new IllegalStateException("netty-tcnative does not load", OpenSsl.unavailabilityCause());
        }
        SslContext server = SslContextBuilder.forServer(keys)
                .trustManager(trust)
                .clientAuth(ClientAuth.REQUIRE)
                .sslProvider(SslProvider.OPENSSL)
                .protocols("TLSv1.3")
                .build();
        SslContext client = SslContextBuilder.forClient()
                .keyManager(keys)
                .trustManager(trust)
                .endpointIdentificationAlgorithm(null)
                .sslProvider(SslProvider.OPENSSL)
                .protocols("TLSv1.3")
                .build();
        return new TlsEngineBench.Engines() {
            @Override
            public SSLEngine client() {
                return client.newEngine(UnpooledByteBufAllocator.DEFAULT, "member", 1);
            }

            @Override
            public SSLEngine server() {
                return server.newEngine(UnpooledByteBufAllocator.DEFAULT);
            }
        };
    }

    /** The member's one key for both sides (as the node's MemberKeyManager; the JDK's own needs a keystore). */
    private static final class OneKey extends X509ExtendedKeyManager {
        private final PrivateKey key;
        private final X509Certificate[] chain;

        OneKey(PrivateKey key, X509Certificate[] chain) {
            this.key = key;
            this.chain = chain;
        }

        private String alias(String keyType) {
            return key.getAlgorithm().equals(keyType) ? "member" : null;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return new String[] {"member"};
        }

        @Override
        public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
            return "member";
        }

        @Override
        public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
            return "member";
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return new String[] {"member"};
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return alias(keyType);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return alias(keyType);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return chain.clone();
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return key;
        }
    }

    /**
     * The JDK's PKIX checks for every engine. BoringSSL passes TLS 1.3's authentication type as "GENERIC", which the
     * JDK's end-entity check rejects ("Unknown authType: GENERIC"); the JDK's own TLS 1.3 passes "UNKNOWN".
     */
    private static final class Tls13Trust extends X509ExtendedTrustManager {
        private final X509ExtendedTrustManager jdk;

        Tls13Trust(X509ExtendedTrustManager jdk) {
            this.jdk = jdk;
        }

        private static String type(String authType) {
            return authType.equals("GENERIC") ? "UNKNOWN" : authType;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] c, String t, Socket s) throws CertificateException {
            jdk.checkClientTrusted(c, type(t), s);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] c, String t, Socket s) throws CertificateException {
            jdk.checkServerTrusted(c, type(t), s);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] c, String t, SSLEngine e) throws CertificateException {
            jdk.checkClientTrusted(c, type(t), e);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] c, String t, SSLEngine e) throws CertificateException {
            jdk.checkServerTrusted(c, type(t), e);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] c, String t) throws CertificateException {
            jdk.checkClientTrusted(c, type(t));
        }

        @Override
        public void checkServerTrusted(X509Certificate[] c, String t) throws CertificateException {
            jdk.checkServerTrusted(c, type(t));
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return jdk.getAcceptedIssuers();
        }
    }
}
