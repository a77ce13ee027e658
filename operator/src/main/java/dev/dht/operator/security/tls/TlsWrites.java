package dev.dht.operator.security.tls;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.security.CertificateSet;
import dev.dht.operator.security.pki.Credential;
import io.fabric8.kubernetes.api.model.Secret;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one step of {@link TlsPlan} writes: the Secrets, in order, and the state they leave. Pure, given the new
 * keys ({@link Keys} makes them: that part is random).
 */
public final class TlsWrites {
    /** Makes new credentials when a step needs them. */
    public interface Keys {
        Credential newCa();

        Credential newMember(Credential ca);
    }

    /** @param writes the Secrets to apply, in this order (the CA before a certificate it signs) */
    public record Result(List<Secret> writes, TlsState after) {}

    private TlsWrites() {}

    public static Result of(
            DhtCluster cluster,
            CertificateSet tls,
            TlsState state,
            TlsPlan.Step step,
            Keys keys,
            java.time.Instant now) {
        var writes = new ArrayList<Secret>();
        TlsState after = switch (step) {
            case CREATE_CA, REPLACE_CA -> {
                var ca = keys.newCa();
                writes.add(TlsSecrets.ca(cluster, tls, ca, tls.replaceCaRequest()));
                var next = new TlsState(
                        Optional.of(ca),
                        state.member(),
                        state.trusted(),
                        state.renewedFor(),
                        tls.replaceCaRequest(),
                        state.memberSecretExists(),
                        Optional.empty(),
                        state.phaseSince());
                // A brand new cluster gets its first certificate right away: there is nothing to phase in.
                yield next.member().isEmpty() ? issue(cluster, tls, next, keys, writes, now) : next;
            }
            case ISSUE -> issue(cluster, tls, state, keys, writes, now);
            case TRUST_CA -> {
                var trusted = new ArrayList<>(state.trusted());
                trusted.add(state.ca().orElseThrow().certificate());
                yield member(
                        cluster, tls, state, state.member().orElseThrow(), trusted, state.renewedFor(), writes, now);
            }
            case DROP_OLD_CAS ->
                member(
                        cluster,
                        tls,
                        state,
                        state.member().orElseThrow(),
                        List.of(state.ca().orElseThrow().certificate()),
                        state.renewedFor(),
                        writes,
                        now);
            case NONE -> state;
        };
        return new Result(List.copyOf(writes), after);
    }

    private static TlsState issue(
            DhtCluster cluster,
            CertificateSet tls,
            TlsState state,
            Keys keys,
            List<Secret> writes,
            java.time.Instant now) {
        var ca = state.ca().orElseThrow();
        // Same CA: the members trust it already, so ca.crt stays; a new Secret trusts just the CA.
        List<X509Certificate> trusted =
                state.member().isPresent() && !state.trusted().isEmpty() ? state.trusted() : List.of(ca.certificate());
        return member(cluster, tls, state, keys.newMember(ca), trusted, tls.renewRequest(), writes, now);
    }

    private static TlsState member(
            DhtCluster cluster,
            CertificateSet tls,
            TlsState state,
            Credential member,
            List<X509Certificate> trusted,
            String renewedFor,
            List<Secret> writes,
            java.time.Instant now) {
        writes.add(TlsSecrets.member(cluster, tls, member, trusted, renewedFor, now));
        return new TlsState(
                state.ca(),
                Optional.of(member),
                List.copyOf(trusted),
                renewedFor,
                state.replacedFor(),
                true,
                Optional.empty(),
                tls.phaseGrace().isZero() ? Optional.empty() : Optional.of(now));
    }
}
