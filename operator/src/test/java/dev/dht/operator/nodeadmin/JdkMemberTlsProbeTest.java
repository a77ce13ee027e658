package dev.dht.operator.nodeadmin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.security.pki.CertificateAuthority;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.testing.TlsMember;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The probe against a stand-in member port speaking real mutual TLS on loopback. */
class JdkMemberTlsProbeTest {
    static final String HOST = "localhost"; // the certificate names it, as a member's names its DNS name
    final CertificateAuthority authority = new CertificateAuthority(new SecureRandom());
    final Instant now = Instant.now();
    final Credential oldCa = authority.createCa("old", now, Duration.ofDays(1));
    final Credential newCa = authority.createCa("new", now, Duration.ofDays(1));
    final Credential served = issue(oldCa, HOST);

    @Test
    void seesTheServedCertificateAndWhetherTheClientIsAccepted() throws Exception {
        var files = new AtomicReference<>(new TlsMember.Files(served, List.of(oldCa.certificate())));
        try (var member = new TlsMember(files::get)) {
            var probe = new JdkMemberTlsProbe();
            var trustAll = List.of(oldCa.certificate(), newCa.certificate());

            var byOld = get(probe, member.port(), issue(oldCa, "operator"), trustAll);
            assertThat(byOld.answered()).as(byOld.detail()).isTrue();
            assertThat(byOld.served()).contains(served.certificate());

            // A member that trusts only the old CA refuses a client of the new one.
            var byNew = get(probe, member.port(), issue(newCa, "operator"), trustAll);
            assertThat(byNew.answered()).as(byNew.detail()).isFalse();
            assertThat(byNew.served()).contains(served.certificate());

            // Once it reloaded a ca.crt with both, it accepts it.
            files.set(new TlsMember.Files(served, trustAll));
            var reloaded = get(probe, member.port(), issue(newCa, "operator"), trustAll);
            assertThat(reloaded.answered()).as(reloaded.detail()).isTrue();
            assertThat(member.answered()).isEqualTo(2);
        }
    }

    @Test
    void aMemberWhoseCertificateDoesNotNameItOrIsNotTrustedFailsTheProbe() throws Exception {
        var wrongName = issue(oldCa, "elsewhere.example");
        try (var member = new TlsMember(() -> new TlsMember.Files(wrongName, List.of(oldCa.certificate())))) {
            var result =
                    get(new JdkMemberTlsProbe(), member.port(), issue(oldCa, "operator"), List.of(oldCa.certificate()));
            assertThat(result.answered()).isFalse();
            assertThat(result.detail()).contains("TLS refused");
        }
        try (var member = new TlsMember(() -> new TlsMember.Files(served, List.of(oldCa.certificate())))) {
            var result =
                    get(new JdkMemberTlsProbe(), member.port(), issue(newCa, "operator"), List.of(newCa.certificate()));
            assertThat(result.answered()).isFalse();
        }
    }

    @Test
    void nothingListeningIsAnAnswerNotAnException() throws Exception {
        int port;
        try (var s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        var result = get(new JdkMemberTlsProbe(), port, issue(oldCa, "operator"), List.of(oldCa.certificate()));
        assertThat(result.answered()).isFalse();
        assertThat(result.served()).isEmpty();
    }

    private Credential issue(Credential ca, String name) {
        return authority.issue(ca, name, List.of(name), now, Duration.ofHours(1));
    }

    private static MemberTlsProbe.Result get(
            MemberTlsProbe probe, int port, Credential client, List<X509Certificate> trusted) throws Exception {
        return probe.probe("127.0.0.1", port, HOST, client, trusted).get(30, TimeUnit.SECONDS);
    }
}
