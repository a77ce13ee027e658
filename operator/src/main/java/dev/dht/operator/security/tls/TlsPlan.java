package dev.dht.operator.security.tls;

import dev.dht.operator.security.CertificateSet;
import dev.dht.operator.security.pki.Certificates;
import dev.dht.operator.security.tls.MemberChecks.Check;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;

/**
 * The certificate state machine of mode Operator, for either port ({@link CertificateSet}): from the live Secrets
 * (and, during a CA replacement, what the members were seen to use) to the one next step. Pure; each step is one
 * Secret write, so a restarted operator continues from the Secrets where its predecessor stopped.
 *
 * <pre>
 * no CA                          -> CREATE_CA (and, without a members' Secret, ISSUE right after)
 * members' Secret missing        -> ISSUE (ca.crt = the CA)
 * CA not in ca.crt               -> TRUST_CA         (ca.crt = old CAs + new)                  TrustingNewCa
 * certificate not by the CA      -> wait until every member accepts the new CA, then ISSUE     TrustingNewCa
 * ca.crt holds other CAs too     -> wait until every member serves the new certificate,
 *                                   then DROP_OLD_CAS (ca.crt = the CA)                        Reissuing
 * steady, CA due or replace-ca   -> REPLACE_CA (a new CA in the CA Secret; the members still
 *                                   trust and use the old one, so nothing breaks)
 * steady, certificate due, names
 * changed, or renew-certificate  -> ISSUE (same CA: every member trusts it already)
 * </pre>
 *
 * A CA replacement therefore never has a member present a certificate its peers do not trust yet, nor drops a CA a
 * member still presents: no failed request, and the pods are not restarted (the nodes reload their files). The
 * client port's parties include clients the operator cannot see: there each phase also lasts at least the set's
 * {@link CertificateSet#phaseGrace} after its Secret was written, for them to load the new CA bundle (phase 1) and
 * their re-issued certificates (phase 2).
 */
public final class TlsPlan {
    public enum Step {
        NONE,
        CREATE_CA,
        REPLACE_CA,
        TRUST_CA,
        ISSUE,
        DROP_OLD_CAS
    }

    /** @param message what happens or what is waited for (the status's tls.message) */
    public record Decision(Step step, Rotation rotation, String message) {
        public boolean waiting() {
            return step == Step.NONE && rotation != Rotation.Steady;
        }
    }

    private TlsPlan() {}

    /** What the operator must look at on the members before {@link #decide} can move on. */
    public static Check toCheck(TlsState state) {
        if (state.problem().isPresent()
                || state.ca().isEmpty()
                || state.member().isEmpty()) {
            return Check.NONE;
        }
        var ca = state.ca().get().certificate();
        if (!state.trusts(ca)) {
            return Check.NONE;
        }
        if (!Certificates.signedBy(state.member().get().certificate(), ca)) {
            return Check.MEMBERS_TRUST_CA;
        }
        return state.trustsOnly(ca) ? Check.NONE : Check.MEMBERS_SERVE_CERTIFICATE;
    }

    public static Decision decide(CertificateSet model, TlsState state, Instant now, MemberChecks checks) {
        if (state.problem().isPresent()) {
            return new Decision(
                    Step.NONE,
                    Rotation.Steady,
                    state.problem().get()
                            + ": fix or delete the Secret (a deleted CA is replaced in phases, without a failed request)");
        }
        if (state.ca().isEmpty()) {
            return new Decision(
                    Step.CREATE_CA,
                    state.member().isPresent() ? Rotation.TrustingNewCa : Rotation.Steady,
                    state.member().isPresent()
                            ? "the CA Secret is missing: a new CA, introduced in phases"
                            : "creating the cluster's CA");
        }
        var ca = state.ca().get().certificate();
        if (state.member().isEmpty()) {
            return new Decision(Step.ISSUE, Rotation.Steady, "issuing " + model.owner() + " certificate");
        }
        var member = state.member().get().certificate();
        if (!state.trusts(ca)) {
            return new Decision(
                    Step.TRUST_CA,
                    Rotation.TrustingNewCa,
                    "CA replacement 1/3: the members trust the old and the new CA");
        }
        if (!Certificates.signedBy(member, ca)) {
            if (!checks.allOk()) {
                return new Decision(
                        Step.NONE,
                        Rotation.TrustingNewCa,
                        "CA replacement 1/3: waiting for the members to trust the new CA: " + checks.waitingFor());
            }
            var until = graceUntil(model, state, now);
            if (until != null) {
                return new Decision(
                        Step.NONE,
                        Rotation.TrustingNewCa,
                        "CA replacement 1/3: every member trusts the new CA;" + " clients have until " + until
                                + " to load the CA bundle with both CAs (reloadGrace)");
            }
            return new Decision(
                    Step.ISSUE,
                    Rotation.Reissuing,
                    "CA replacement 2/3: " + model.owner() + " certificate is re-issued by the new CA");
        }
        if (!state.trustsOnly(ca)) {
            if (!checks.allOk()) {
                return new Decision(
                        Step.NONE,
                        Rotation.Reissuing,
                        "CA replacement 2/3: waiting for the members to use the new certificate: "
                                + checks.waitingFor());
            }
            var until = graceUntil(model, state, now);
            if (until != null) {
                return new Decision(
                        Step.NONE,
                        Rotation.Reissuing,
                        "CA replacement 2/3: every member uses the new" + " certificate; clients have until " + until
                                + " to load their certificates of the new CA (reloadGrace)");
            }
            return new Decision(
                    Step.DROP_OLD_CAS, Rotation.DroppingOldCa, "CA replacement 3/3: the members trust the new CA only");
        }
        String caDue = caDue(model, state, ca, now);
        if (caDue != null) {
            return new Decision(Step.REPLACE_CA, Rotation.TrustingNewCa, "CA replacement starts: " + caDue);
        }
        String renewal = renewalDue(model, state, member, ca, now);
        if (renewal != null) {
            return new Decision(Step.ISSUE, Rotation.Steady, "renewing " + model.owner() + " certificate: " + renewal);
        }
        return new Decision(
                Step.NONE,
                Rotation.Steady,
                "certificate valid until " + Certificates.notAfter(member) + ", CA until " + Certificates.notAfter(ca));
    }

    /** When the phase the Secret was written for may end, if that is still ahead (the set's phase grace). */
    static Instant graceUntil(CertificateSet model, TlsState state, Instant now) {
        if (model.phaseGrace().isZero() || state.phaseSince().isEmpty()) {
            return null;
        }
        Instant until = state.phaseSince().get().plus(model.phaseGrace());
        return now.isBefore(until) ? until : null;
    }

    /** Why the CA must be replaced now, or null. */
    static String caDue(CertificateSet model, TlsState state, X509Certificate ca, Instant now) {
        if (!model.replaceCaRequest().isEmpty() && !model.replaceCaRequest().equals(state.replacedFor())) {
            return "asked for (annotation dht.dev/replace-ca=" + model.replaceCaRequest() + ")";
        }
        Instant end = Certificates.notAfter(ca);
        if (!now.isBefore(end.minus(model.caRenewBefore()))) {
            return "the CA expires at " + end;
        }
        return null;
    }

    /** Why the member certificate must be re-issued by the same CA now, or null. */
    static String renewalDue(
            CertificateSet model, TlsState state, X509Certificate member, X509Certificate ca, Instant now) {
        if (!Certificates.dnsNames(member).equals(model.dnsNames())) {
            return "its names " + Certificates.dnsNames(member) + " are not " + model.dnsNames();
        }
        if (!model.renewRequest().isEmpty() && !model.renewRequest().equals(state.renewedFor())) {
            return "asked for (annotation dht.dev/renew-certificate=" + model.renewRequest() + ")";
        }
        Instant end = Certificates.notAfter(member);
        // A certificate cut at its CA's end is renewed by the CA's replacement, which starts no later (the model checks
        // caRenewBefore >= renewBefore); renewing it from the same CA would give the same end again.
        if (!now.isBefore(end.minus(model.renewBefore())) && end.isBefore(Certificates.notAfter(ca))) {
            return "it expires at " + end;
        }
        if (Duration.between(now, end).isNegative()) {
            return "it expired at " + end;
        }
        return null;
    }
}
