package dev.dht.operator.security.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * The certificates the operator makes, checked the way the members use them: a mutual TLS handshake between two
 * JDK endpoints on loopback, the client verifying the server's name as a member dialling a peer's DNS name does.
 */
class CertificateAuthorityTest {
    static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    static final String WILDCARD = "*.dht-headless.ns.svc.cluster.local";
    static final String MEMBER_1 = "dht-1.dht-headless.ns.svc.cluster.local";
    final CertificateAuthority authority = new CertificateAuthority(new SecureRandom());

    @Test
    void aCaSignsMemberCertificatesForBothEndsOfAConnection() throws Exception {
        var ca = authority.createCa("dht-ca ns/dht", NOW, Duration.ofDays(365));
        var member = authority.issue(ca, "dht member", List.of(WILDCARD), NOW, Duration.ofDays(90));

        assertThat(Certificates.isCa(ca.certificate())).isTrue();
        assertThat(Certificates.isCa(member.certificate())).isFalse();
        assertThat(Certificates.signedBy(member.certificate(), ca.certificate()))
                .isTrue();
        assertThat(Certificates.matches(member.certificate(), member.key())).isTrue();
        assertThat(Certificates.matches(member.certificate(), ca.key())).isFalse();
        assertThat(Certificates.dnsNames(member.certificate())).containsExactly(WILDCARD);
        assertThat(member.certificate().getExtendedKeyUsage())
                .containsExactlyInAnyOrder("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        assertThat(Certificates.notAfter(member.certificate())).isEqualTo(NOW.plus(Duration.ofDays(90)));
        assertThat(member.certificate().getNotBefore().toInstant()).isEqualTo(NOW.minus(CertificateAuthority.BACKDATE));
        // Never valid beyond the CA that vouches for it.
        var late = authority.issue(ca, "dht member", List.of(WILDCARD), NOW, Duration.ofDays(900));
        assertThat(Certificates.notAfter(late.certificate())).isEqualTo(Certificates.notAfter(ca.certificate()));
    }

    @Test
    void wildcardNamesCoverOneLabelOnly() throws Exception {
        var ca = authority.createCa("ca", NOW, Duration.ofDays(1));
        X509Certificate cert = authority
                .issue(ca, "m", List.of(WILDCARD), NOW, Duration.ofHours(1))
                .certificate();
        assertThat(Certificates.covers(cert, MEMBER_1)).isTrue();
        assertThat(Certificates.covers(cert, "DHT-1.dht-headless.NS.svc.cluster.local"))
                .isTrue();
        assertThat(Certificates.covers(cert, "dht-headless.ns.svc.cluster.local"))
                .isFalse();
        assertThat(Certificates.covers(cert, "a.dht-1.dht-headless.ns.svc.cluster.local"))
                .isFalse();
        assertThat(Certificates.covers(cert, "dht-1.other-headless.ns.svc.cluster.local"))
                .isFalse();
    }

    @Test
    void pemRoundTripsKeysAndBundles() throws Exception {
        var ca = authority.createCa("ca", NOW, Duration.ofDays(1));
        var other = authority.createCa("other", NOW, Duration.ofDays(1));
        var member = authority.issue(ca, "m", List.of(WILDCARD), NOW, Duration.ofHours(1));

        assertThat(member.keyPem()).startsWith("-----BEGIN PRIVATE KEY-----\n").endsWith("-----END PRIVATE KEY-----\n");
        var read = Credential.read(member.certificatePem(), member.keyPem());
        assertThat(read.certificate()).isEqualTo(member.certificate());
        assertThat(read.key().getEncoded()).isEqualTo(member.key().getEncoded());
        assertThat(Pem.readCertificates(Pem.certificates(List.of(ca.certificate(), other.certificate()))))
                .containsExactly(ca.certificate(), other.certificate());

        assertThatThrownBy(() -> Credential.read(member.certificatePem(), ca.keyPem()))
                .hasMessageContaining("does not belong");
        assertThatThrownBy(() -> Pem.readCertificates("hello"))
                .hasMessageContaining("no '-----BEGIN CERTIFICATE-----'");
        assertThatThrownBy(() -> Pem.readPrivateKey(member.keyPem().replace("PRIVATE KEY", "EC PRIVATE KEY")))
                .hasMessageContaining("PKCS#8");
    }

    @Test
    void membersOfOneCaTalkOverMutualTlsByName() throws Exception {
        var ca = authority.createCa("ca", NOW(), Duration.ofDays(1));
        var server = authority.issue(ca, "m", List.of(WILDCARD), NOW(), Duration.ofHours(1));
        var client = authority.issue(ca, "m", List.of(WILDCARD), NOW(), Duration.ofHours(1));

        assertThat(handshake(server, List.of(ca.certificate()), client, List.of(ca.certificate()), MEMBER_1))
                .isEqualTo("ok");
    }

    @Test
    void aPeerWithACertificateOfAnotherCaOrAWrongNameIsRefused() throws Exception {
        var ca = authority.createCa("ca", NOW(), Duration.ofDays(1));
        var foreignCa = authority.createCa("ca", NOW(), Duration.ofDays(1)); // same name, other key
        var server = authority.issue(ca, "m", List.of(WILDCARD), NOW(), Duration.ofHours(1));
        var stranger = authority.issue(foreignCa, "m", List.of(WILDCARD), NOW(), Duration.ofHours(1));
        var elsewhere =
                authority.issue(ca, "m", List.of("*.other-headless.ns.svc.cluster.local"), NOW(), Duration.ofHours(1));

        // The server does not trust the client's CA: no answer.
        assertThat(handshake(server, List.of(ca.certificate()), stranger, List.of(ca.certificate()), MEMBER_1))
                .startsWith("refused");
        // The client does not trust the server's CA.
        assertThat(handshake(stranger, List.of(ca.certificate()), server, List.of(ca.certificate()), MEMBER_1))
                .startsWith("refused");
        // The server's certificate does not name the member dialled.
        assertThat(handshake(elsewhere, List.of(ca.certificate()), server, List.of(ca.certificate()), MEMBER_1))
                .startsWith("refused");
        // Trusting both CAs (a CA replacement's middle phase) accepts either.
        assertThat(handshake(
                        server,
                        List.of(ca.certificate(), foreignCa.certificate()),
                        stranger,
                        List.of(ca.certificate(), foreignCa.certificate()),
                        MEMBER_1))
                .isEqualTo("ok");
    }

    private static Instant NOW() {
        return Instant.now(); // the JDK checks validity against its own clock
    }

    /**
     * One request and answer over mutual TLS on loopback, the client checking the server's name as {@code host};
     * "ok", or "refused: <what failed>".
     */
    static String handshake(
            Credential server,
            List<X509Certificate> serverTrusts,
            Credential client,
            List<X509Certificate> clientTrusts,
            String host)
            throws Exception {
        var serverContext = TlsContexts.of(server, serverTrusts);
        try (var listener = (SSLServerSocket)
                serverContext.getServerSocketFactory().createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            listener.setNeedClientAuth(true);
            var served = CompletableFuture.runAsync(() -> {
                try (var s = listener.accept()) {
                    s.setSoTimeout(5000);
                    InputStream in = s.getInputStream();
                    in.read();
                    s.getOutputStream().write('y');
                    s.getOutputStream().flush();
                } catch (IOException e) {
                    // the client sees the failure
                }
            });
            var clientContext = TlsContexts.of(client, clientTrusts);
            try (var plain = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
                    var tls = (SSLSocket)
                            clientContext.getSocketFactory().createSocket(plain, host, plain.getPort(), true)) {
                tls.setSoTimeout(5000);
                SSLParameters params = tls.getSSLParameters();
                params.setEndpointIdentificationAlgorithm("HTTPS");
                tls.setSSLParameters(params);
                OutputStream out = tls.getOutputStream();
                out.write("x".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                int answer = tls.getInputStream().read();
                return answer == 'y' ? "ok" : "refused: no answer (" + answer + ")";
            } catch (IOException e) {
                return "refused: " + e;
            } finally {
                served.get(10, TimeUnit.SECONDS);
            }
        }
    }
}
