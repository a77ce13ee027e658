package dev.dht.operator.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.security.pki.CertificateAuthority;
import dev.dht.operator.security.tls.ClientCredentials;
import dev.dht.operator.security.tls.ClientCredentials.Held;
import dev.dht.operator.security.tls.ClientCredentials.Step;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * When the operator issues, re-issues or only re-bundles a client certificate it keeps (a DhtUser's, its own): from
 * what the Secret holds, the CA that signs now and the members' CA bundle.
 */
class ClientCredentialsTest {
    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    static final Duration RENEW = Duration.ofDays(30);
    final CertificateAuthority authority = new CertificateAuthority(new SecureRandom());

    @Test
    void issuedWhenMissingOrWrongRenewedWhenDueRebundledWhenTheBundleChanges() {
        var ca = authority.createCa("ca", T0, Duration.ofDays(365));
        var subject = ClientCredentials.subject("read-write", "app");
        var none = new Held(Optional.empty(), List.of());
        assertThat(ClientCredentials.decide(none, subject, Optional.of(ca), List.of(ca.certificate()), RENEW, T0)
                        .step())
                .isEqualTo(Step.ISSUE);
        var issued = authority.issueClient(ca, "app", "read-write", T0, Duration.ofDays(90));
        assertThat(issued.certificate().getSubjectX500Principal()).isEqualTo(subject);
        var held = new Held(Optional.of(issued), List.of(ca.certificate()));
        assertThat(ClientCredentials.decide(held, subject, Optional.of(ca), List.of(ca.certificate()), RENEW, T0)
                        .step())
                .isEqualTo(Step.NONE);
        // a scope change
        assertThat(ClientCredentials.decide(
                                held,
                                ClientCredentials.subject("admin", "app"),
                                Optional.of(ca),
                                List.of(ca.certificate()),
                                RENEW,
                                T0)
                        .why())
                .contains("is not");
        // renewBefore its end
        assertThat(ClientCredentials.decide(
                                held,
                                subject,
                                Optional.of(ca),
                                List.of(ca.certificate()),
                                RENEW,
                                T0.plus(Duration.ofDays(61)))
                        .step())
                .isEqualTo(Step.ISSUE);
        // a new CA signs now (a CA replacement's phase 2)
        var next = authority.createCa("next", T0, Duration.ofDays(365));
        assertThat(ClientCredentials.decide(
                                held,
                                subject,
                                Optional.of(next),
                                List.of(ca.certificate(), next.certificate()),
                                RENEW,
                                T0)
                        .why())
                .contains("re-issuing it from the members' current CA");
        // phase 1: the bundle gains the new CA; nothing signs (the old CA's key is gone) but the bundle cannot wait
        var twoCas = List.of(ca.certificate(), next.certificate());
        assertThat(ClientCredentials.decide(held, subject, Optional.empty(), twoCas, RENEW, T0)
                        .step())
                .isEqualTo(Step.BUNDLE);
        assertThat(ClientCredentials.decide(
                                held, subject, Optional.empty(), twoCas, RENEW, T0.plus(Duration.ofDays(61)))
                        .step())
                .as("due, and the bundle changed: the bundle first")
                .isEqualTo(Step.BUNDLE);
        var rebundled = new Held(Optional.of(issued), twoCas);
        var wait = ClientCredentials.decide(
                rebundled, subject, Optional.empty(), twoCas, RENEW, T0.plus(Duration.ofDays(61)));
        assertThat(wait.step()).isEqualTo(Step.WAIT);
        assertThat(wait.why()).contains("waits for the CA replacement's second phase");
    }
}
