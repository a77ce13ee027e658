package dev.dht.operator.security.tls;

import dev.dht.operator.api.v1alpha1.CertificateStatus;
import dev.dht.operator.api.v1alpha1.ClientTlsIssuer;
import dev.dht.operator.api.v1alpha1.ClientTlsStatus;
import dev.dht.operator.api.v1alpha1.TlsMode;
import dev.dht.operator.api.v1alpha1.TlsStatus;
import dev.dht.operator.security.CertificateSet;
import dev.dht.operator.security.SecurityModel;
import dev.dht.operator.security.pki.Certificates;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * The status of a cluster's certificates and its condition CertificatesValid, from what the Secrets hold. Pure. The
 * condition is False (and the operator records a Warning Event) when the certificate the members use is missing,
 * unusable, or within renewBefore of its end: in mode Operator that means renewal failed or could not happen yet, in
 * the other modes that whoever renews it has not.
 */
public final class TlsStatuses {
    public static final String CONDITION = "CertificatesValid";
    /** The client port's certificate (with client TLS on). */
    public static final String CLIENT_CONDITION = "ClientCertificatesValid";

    /** The condition's status, reason and message. */
    public record Verdict(boolean valid, String reason, String message) {}

    private TlsStatuses() {}

    /**
     * @param decision what the plan decided this round (mode Operator), if anything
     * @param failure why the step could not be written, if it failed
     */
    public static TlsStatus status(
            SecurityModel.Tls model, TlsState state, Optional<TlsPlan.Decision> decision, Optional<String> failure) {
        var out = new TlsStatus();
        out.mode = model.mode();
        if (!model.enabled()) {
            out.message = "no TLS between the members (spec.tls.mode Disabled): they run with --member-insecure";
            return out;
        }
        return certificates(out, model, state, model.mode() == TlsMode.Operator, decision, failure);
    }

    public static Verdict verdict(SecurityModel.Tls model, TlsState state, Optional<String> failure, Instant now) {
        String missing = switch (model.mode()) {
            case Secret ->
                "Secret " + model.secretName() + " does not exist: create it with tls.crt, tls.key and ca.crt";
            case CertManager -> "waiting for cert-manager to issue Secret " + model.secretName();
            default -> "the members' certificate is being issued";
        };
        String renewHint = switch (model.mode()) {
            case Secret -> ": put a renewed certificate into Secret " + model.secretName();
            case CertManager -> ": see the Certificate " + model.secretName() + " (kubectl describe certificate)";
            default -> " yet";
        };
        return verdict(
                model,
                "member-0" + model.memberDnsName().substring(1),
                missing,
                renewHint,
                "members would refuse each other",
                state,
                failure,
                now);
    }

    /** The condition ClientCertificatesValid: the client port's certificate, as the members serve it. */
    public static Verdict clientVerdict(
            SecurityModel.ClientTls model, TlsState state, Optional<String> failure, Instant now) {
        boolean certManager = model.issuer() == ClientTlsIssuer.CertManager;
        return verdict(
                model,
                model.dnsNames().get(2),
                certManager
                        ? "waiting for cert-manager to issue Secret " + model.secretName()
                        : "the client port's certificate is being issued",
                certManager
                        ? ": see the Certificate " + model.secretName() + " (kubectl describe certificate)"
                        : " yet",
                "clients would refuse it",
                state,
                failure,
                now);
    }

    /**
     * @param coveredName a name the certificate must cover
     * @param missing why there is no certificate yet (no problem with the Secret seen)
     * @param renewHint what to look at when it was not renewed in time
     * @param wrongName what a certificate that does not cover the name leads to
     */
    static Verdict verdict(
            CertificateSet set,
            String coveredName,
            String missing,
            String renewHint,
            String wrongName,
            TlsState state,
            Optional<String> failure,
            Instant now) {
        if (state.member().isEmpty()) {
            return new Verdict(
                    false,
                    state.problem().isPresent() ? "Invalid" : "Missing",
                    state.problem().orElse(missing));
        }
        var cert = state.member().get().certificate();
        Instant end = Certificates.notAfter(cert);
        if (!Certificates.covers(cert, coveredName)) {
            return new Verdict(
                    false,
                    "WrongName",
                    "the certificate in Secret " + set.secretName() + " names " + Certificates.dnsNames(cert) + ", not "
                            + coveredName + ": " + wrongName);
        }
        if (issuer(cert, state).isEmpty()) {
            return new Verdict(
                    false,
                    "Untrusted",
                    "the certificate in Secret " + set.secretName() + " is not signed by a CA of its ca.crt: "
                            + wrongName);
        }
        if (!now.isBefore(end)) {
            return new Verdict(false, "Expired", set.owner() + " certificate expired at " + time(end));
        }
        if (failure.isPresent()) {
            return new Verdict(
                    false,
                    "RenewalFailed",
                    "the certificate (valid until " + time(end) + ") could not be renewed or rotated: "
                            + failure.get());
        }
        if (!now.isBefore(end.minus(set.renewBefore()))) {
            return new Verdict(
                    false,
                    "ExpiresSoon",
                    set.owner() + " certificate expires at " + time(end) + ", within"
                            + " renewBefore, and was not renewed" + renewHint);
        }
        return new Verdict(true, "Valid", set.owner() + " certificate is valid until " + time(end));
    }

    /** status.tls.client from what the Secrets hold. */
    public static ClientTlsStatus clientStatus(
            SecurityModel.ClientTls model,
            TlsState state,
            Optional<TlsPlan.Decision> decision,
            Optional<String> failure) {
        var out = new ClientTlsStatus();
        out.enabled = model.enabled();
        out.reason = model.reason();
        if (!model.enabled()) {
            return out;
        }
        out.issuer = model.issuer();
        out.clientAuth = model.clientAuth();
        out.caConfigMap = model.caConfigMap();
        return certificates(out, model, state, model.issuer() == ClientTlsIssuer.Operator, decision, failure);
    }

    /** Either port's certificate, its CA, the rotation's phase (when the operator rotates it) and the message. */
    private static <S extends CertificateStatus> S certificates(
            S out,
            CertificateSet set,
            TlsState state,
            boolean operatorRotates,
            Optional<TlsPlan.Decision> decision,
            Optional<String> failure) {
        out.secretName = set.secretName();
        state.member().ifPresent(m -> {
            out.certificateNotAfter = time(Certificates.notAfter(m.certificate()));
            out.certificateFingerprint = Certificates.fingerprint(m.certificate());
            issuer(m.certificate(), state).ifPresent(ca -> {
                out.caNotAfter = time(Certificates.notAfter(ca));
                out.caFingerprint = Certificates.fingerprint(ca);
            });
        });
        if (operatorRotates) {
            decision.ifPresent(d -> out.rotation = d.rotation().name());
        }
        out.message = failure.map(f -> "could not write the certificates: " + f)
                .orElse(decision.map(TlsPlan.Decision::message).orElse(null));
        return out;
    }

    /** The CA of ca.crt (or the operator's CA) that signed the certificate. */
    static Optional<X509Certificate> issuer(X509Certificate cert, TlsState state) {
        var candidates = new java.util.ArrayList<>(state.trusted());
        state.ca().ifPresent(ca -> candidates.add(0, ca.certificate()));
        return candidates.stream().filter(ca -> Certificates.signedBy(cert, ca)).findFirst();
    }

    static String time(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
