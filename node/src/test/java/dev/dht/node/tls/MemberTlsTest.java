package dev.dht.node.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.support.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading the member TLS files: what works, and what makes a node refuse to start, with the reason. */
class MemberTlsTest {
    static final Duration POLL = Duration.ofMillis(200);

    @Test
    void goodFilesLoadAndProveThemselves(@TempDir Path dir) {
        TestCertificates ca = TestCertificates.authority("ca");
        TestCertificates.Member m = ca.issue(dir, "member-0");
        try (MemberTls tls = MemberTls.open(m.cert(), m.key(), m.ca(), POLL)) {
            assertThat(tls.generation()).isEqualTo(1);
            assertThat(tls.notAfterMillis()).isGreaterThan(System.currentTimeMillis());
            assertThat(tls.serverEngine().getNeedClientAuth()).isTrue();
            assertThat(tls.clientEngine("localhost", 1).getUseClientMode()).isTrue();
        }
    }

    @Test
    void unusableFilesSayWhy(@TempDir Path dir) throws Exception {
        TestCertificates ca = TestCertificates.authority("ca");
        TestCertificates other = TestCertificates.authority("other");
        TestCertificates.Member a = ca.issue(dir.resolve("a"), "a");
        TestCertificates.Member b = ca.issue(dir.resolve("b"), "b");
        TestCertificates.Member foreign = other.issue(dir.resolve("o"), "o");

        // a key that is not the certificate's
        assertThatThrownBy(() -> MemberTls.open(a.cert(), b.key(), a.ca(), POLL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("handshake");
        // a certificate the CA file does not trust
        assertThatThrownBy(() -> MemberTls.open(foreign.cert(), foreign.key(), a.ca(), POLL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("handshake");
        // an expired certificate
        TestCertificates.Member expired = ca.issue(dir.resolve("x"), "x", Duration.ofMinutes(-5));
        assertThatThrownBy(() -> MemberTls.open(expired.cert(), expired.key(), expired.ca(), POLL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("valid now");
        // not PKCS#8, not PEM, missing
        Path pkcs1 = dir.resolve("rsa.key");
        Files.writeString(pkcs1, "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        assertThatThrownBy(() -> MemberTls.open(a.cert(), pkcs1, a.ca(), POLL))
                .hasMessageContaining("PKCS#1")
                .hasMessageContaining("openssl pkcs8");
        assertThatThrownBy(() -> MemberTls.open(a.key(), a.key(), a.ca(), POLL))
                .hasMessageContaining("--member-tls-cert");
        assertThatThrownBy(() -> MemberTls.open(a.cert(), a.key(), dir.resolve("missing"), POLL))
                .hasMessageContaining("cannot read");
    }

    @Test
    void changedFilesAreANewGenerationAndUnusableOnesAreIgnored(@TempDir Path dir) throws Exception {
        TestCertificates ca = TestCertificates.authority("ca");
        TestCertificates.Member m = ca.issue(dir, "m", Duration.ofHours(2));
        try (MemberTls tls = MemberTls.open(m.cert(), m.key(), m.ca(), POLL)) {
            long before = tls.notAfterMillis();
            ca.issue(dir, "m", Duration.ofDays(1)); // renewal: same CA, new key and certificate
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> tls.generation() == 2);
            assertThat(tls.notAfterMillis()).isGreaterThan(before);
            Files.writeString(m.key(), "not a key");
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> tls.reloadFailures() == 1);
            assertThat(tls.generation()).as("the material in force stays").isEqualTo(2);
        }
    }

    @Test
    void aHandshakeFailureIsDescribedWithItsCauses() {
        Exception e = new javax.net.ssl.SSLProtocolException("Unexpected exception");
        e.initCause(new java.security.GeneralSecurityException(
                "Unexpected plaintext alert received: Level: warning; Alert: user_canceled"));
        assertThat(MemberTls.describe(e))
                .isEqualTo("javax.net.ssl.SSLProtocolException: Unexpected exception; caused"
                        + " by java.security.GeneralSecurityException: Unexpected plaintext alert received: Level: warning;"
                        + " Alert: user_canceled");
    }
}
