package dev.dht.node.support;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * What a client of a node's TLS client port holds: the CAs it trusts for the server, and maybe a client certificate
 * (PEM files as {@link TestCertificates} writes them), as a JDK TLS context, or a connected TLS socket.
 */
public final class TlsClients {
    private TlsClients() {}

    /** Trusts the CAs of these PEM files; presents the client certificate unless it is null. */
    public static SSLContext context(TestCertificates.Member client, Path... trusted) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            int n = 0;
            for (Path file : trusted) {
                for (Certificate c : certificates(file)) {
                    trust.setCertificateEntry("ca-" + n++, c);
                }
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(trust);
            KeyManager[] keyManagers = null;
            if (client != null) {
                PrivateKey key = key(client.key());
                X509Certificate[] chain = certificates(client.cert()).toArray(new X509Certificate[0]);
                keyManagers = new KeyManager[] {new AlwaysPresent(key, chain)};
            }
            SSLContext context = SSLContext.getInstance("TLSv1.3");
            context.init(keyManagers, tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A TLS connection to address:port, handshake done (a refused client certificate shows on the first read). */
    public static SSLSocket connect(SSLContext context, InetAddress address, int port) throws IOException {
        Socket plain = new Socket();
        plain.connect(new InetSocketAddress(address, port), 5000);
        plain.setSoTimeout(30_000);
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(plain, address.getHostAddress(), port, true);
        var p = s.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS"); // the server's certificate must name the address
        s.setSSLParameters(p);
        s.startHandshake();
        return s;
    }

    /**
     * Presents its certificate whatever CAs the server names, as curl and OpenSSL do (the JDK's own key managers
     * send none when the server names other CAs, which would hide what the server does with a foreign one).
     */
    private static final class AlwaysPresent extends X509ExtendedKeyManager {
        private final PrivateKey key;
        private final X509Certificate[] chain;

        AlwaysPresent(PrivateKey key, X509Certificate[] chain) {
            this.key = key;
            this.chain = chain;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return new String[] {"client"};
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return "client";
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, javax.net.ssl.SSLEngine engine) {
            return "client";
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
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

    private static List<Certificate> certificates(Path pem) throws IOException, GeneralSecurityException {
        return new ArrayList<>(CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(Files.readAllBytes(pem))));
    }

    private static PrivateKey key(Path pem) throws IOException, GeneralSecurityException {
        String text = Files.readString(pem, StandardCharsets.US_ASCII);
        String base64 = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }
}
