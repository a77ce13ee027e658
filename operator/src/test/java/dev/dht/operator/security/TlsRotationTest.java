package dev.dht.operator.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.Clusters;
import dev.dht.operator.model.Names;
import dev.dht.operator.security.pki.CertificateAuthority;
import dev.dht.operator.security.pki.Certificates;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.tls.ClientCredentials;
import dev.dht.operator.security.tls.MemberChecks;
import dev.dht.operator.security.tls.Rotation;
import dev.dht.operator.security.tls.TlsPlan;
import dev.dht.operator.security.tls.TlsPlan.Step;
import dev.dht.operator.security.tls.TlsState;
import dev.dht.operator.security.tls.TlsWrites;
import io.fabric8.kubernetes.api.model.Secret;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The certificate state machine (mode Operator) driven through issuance, renewals and CA replacements against
 * simulated members that reload the Secret late and in any order, as kubelets and nodes do. What must hold at every
 * moment: any two versions of the members' files that members can hold at the same time accept each other (each
 * one's certificate is signed by a CA the other trusts). That is "no failed request during a rotation".
 *
 * <p>The client port's certificates go through the same plan; there a client outside the operator's sight holds a
 * client certificate and the CA bundle it loaded last, up to reloadGrace late: every version a client and a member
 * may hold at the same time must accept each other too.
 */
class TlsRotationTest {
    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    final CertificateAuthority authority = new CertificateAuthority(new SecureRandom());

    /** One version of the members' Secret (what a member loads). */
    record Files(X509Certificate certificate, List<X509Certificate> trusted) {
        boolean accepts(Files peer) {
            return peer.trusted().stream().anyMatch(ca -> Certificates.signedBy(certificate, ca))
                    && trusted.stream().anyMatch(ca -> Certificates.signedBy(peer.certificate(), ca));
        }
    }

    /** The operator's Secrets and three members, each holding the version of the files it loaded last. */
    final class World {
        Optional<Secret> ca = Optional.empty();
        Optional<Secret> member = Optional.empty();
        final List<Files> versions = new ArrayList<>();
        final int[] loaded = {-1, -1, -1};
        final List<Step> steps = new ArrayList<>();
        final List<Rotation> rotations = new ArrayList<>();
        final Random random;
        final Map<List<Integer>, Boolean> accepted = new java.util.HashMap<>(); // signature checks are slow
        Instant now = T0;
        DhtCluster cluster = Clusters.cluster(s -> {});
        /** The client port's certificates instead of the member port's (with clients that reload up to the grace late). */
        final boolean clientPort;
        /** Versions of a client's files: its certificate and the bundle, with when the operator wrote each. */
        final List<Files> clientVersions = new ArrayList<>();

        final List<Instant> clientWritten = new ArrayList<>();
        int clientLoaded = -1;

        World(long seed) {
            this(seed, false);
        }

        World(long seed, boolean clientPort) {
            random = new Random(seed);
            this.clientPort = clientPort;
        }

        SecurityModel model() {
            return SecurityModel.from(cluster, Names.headlessService("kv"), "cluster.local", Optional.empty());
        }

        SecurityModel.Tls tls() {
            return model().tls();
        }

        CertificateSet set() {
            return clientPort ? model().clientTls() : tls();
        }

        TlsState state() {
            return TlsState.read(ca, member);
        }

        /** One reconcile: check the members if the plan asks, decide, write. */
        TlsPlan.Decision reconcile() {
            var state = state();
            var check = TlsPlan.toCheck(state);
            var results = new LinkedHashMap<String, MemberChecks.Result>();
            var caCert = state.ca().map(Credential::certificate).orElse(null);
            for (int i = 0; i < loaded.length; i++) {
                Files files = loaded[i] < 0 ? null : versions.get(loaded[i]);
                boolean ok = switch (check) {
                    case MEMBERS_TRUST_CA -> files != null && files.trusted().contains(caCert);
                    case MEMBERS_SERVE_CERTIFICATE ->
                        files != null
                                && files.certificate()
                                        .equals(state.member().orElseThrow().certificate());
                    case NONE -> true;
                };
                results.put("kv-" + i, new MemberChecks.Result(ok, ok ? "ok" : "not yet"));
            }
            var set = set();
            if (clientPort && check == MemberChecks.Check.MEMBERS_SERVE_CERTIFICATE) {
                var client = clientVersions.isEmpty() ? null : clientVersions.get(clientVersions.size() - 1);
                boolean reissued = client != null && Certificates.signedBy(client.certificate(), caCert);
                results.put("client", new MemberChecks.Result(reissued, reissued ? "ok" : "not yet"));
            }
            var decision = TlsPlan.decide(set, state, now, new MemberChecks(results));
            var writes = TlsWrites.of(
                    cluster,
                    set,
                    state,
                    decision.step(),
                    new TlsWrites.Keys() {
                        @Override
                        public Credential newCa() {
                            return authority.createCa("ca", now, set.caDuration());
                        }

                        @Override
                        public Credential newMember(Credential ca) {
                            return authority.issue(
                                    ca, "m", set.dnsNames(), set.ipAddresses(), now, set.certificateDuration());
                        }
                    },
                    now);
            for (Secret s : writes.writes()) {
                if (s.getMetadata().getName().equals(set.caSecret())) {
                    ca = Optional.of(s);
                } else {
                    member = Optional.of(s);
                    var after = writes.after();
                    versions.add(new Files(after.member().orElseThrow().certificate(), after.trusted()));
                }
            }
            if (clientPort) {
                keepClient(set);
            }
            steps.add(decision.step());
            rotations.add(decision.rotation());
            return decision;
        }

        /** The operator keeps a client's certificate and bundle as ClientCredentials decides. */
        void keepClient(CertificateSet set) {
            var state = state();
            var latest = clientVersions.isEmpty() ? null : clientVersions.get(clientVersions.size() - 1);
            var held = latest == null
                    ? new ClientCredentials.Held(Optional.empty(), List.of())
                    : new ClientCredentials.Held(
                            Optional.of(new Credential(latest.certificate(), clientKey)), latest.trusted());
            var subject = ClientCredentials.subject("read-write", "app");
            var signer = ClientCredentials.signer(state);
            var d = ClientCredentials.decide(held, subject, signer, state.trusted(), set.renewBefore(), now);
            switch (d.step()) {
                case ISSUE -> {
                    var issued = authority.issueClient(
                            signer.orElseThrow(), "app", "read-write", now, set.certificateDuration());
                    clientKey = issued.key();
                    clientVersions.add(new Files(issued.certificate(), state.trusted()));
                    clientWritten.add(now);
                }
                case BUNDLE -> {
                    clientVersions.add(new Files(latest.certificate(), state.trusted()));
                    clientWritten.add(now);
                }
                default -> {
                    // nothing new
                }
            }
        }

        java.security.PrivateKey clientKey;

        /**
         * Some members (maybe none) pick up the latest files; a new pod would mount them at once. The client picks up
         * its latest files at random too, and at the latest when they are half reloadGrace old (the grace must be longer
         * than clients take: a client as late as the grace itself would meet the next phase at the same moment).
         */
        void someReload() {
            for (int i = 0; i < loaded.length; i++) {
                if (!versions.isEmpty() && random.nextInt(3) == 0) {
                    loaded[i] = versions.size() - 1;
                }
            }
            if (clientPort && !clientVersions.isEmpty() && clientLoaded < clientVersions.size() - 1) {
                var written = clientWritten.get(clientVersions.size() - 1);
                if (random.nextInt(3) == 0
                        || !now.isBefore(written.plus(set().phaseGrace().dividedBy(2)))) {
                    clientLoaded = clientVersions.size() - 1;
                }
            }
        }

        void allReload() {
            for (int i = 0; i < loaded.length; i++) {
                loaded[i] = versions.size() - 1;
            }
        }

        /** Every pair of versions that can be in use now (held by a member, or the latest) accepts each other. */
        void assertNoMemberRefusesAnother() {
            Set<Integer> inUse = new HashSet<>();
            for (int v : loaded) {
                if (v >= 0) {
                    inUse.add(v);
                }
            }
            if (!versions.isEmpty()) {
                inUse.add(versions.size() - 1);
            }
            for (int a : inUse) {
                for (int b : inUse) {
                    assertThat(accepted.computeIfAbsent(
                                    List.of(a, b), k -> versions.get(a).accepts(versions.get(b))))
                            .as("files v%d and v%d in use together (steps so far %s)", a, b, steps)
                            .isTrue();
                }
            }
            if (clientPort && clientLoaded >= 0) {
                var client = clientVersions.get(clientLoaded);
                for (int a : inUse) {
                    assertThat(client.accepts(versions.get(a)))
                            .as("the client's files c%d and the members' v%d (steps so far %s)", clientLoaded, a, steps)
                            .isTrue();
                }
            }
        }

        /**
         * Reconciles (members reloading at random in between) until the plan has nothing to do; at most 100 rounds. On
         * the client port each round takes a quarter of the reload grace (the operator looks again, clients reload).
         */
        void settle() {
            for (int round = 0; round < 100; round++) {
                var d = reconcile();
                assertNoMemberRefusesAnother();
                if (clientPort) {
                    now = now.plus(set().phaseGrace().dividedBy(4));
                }
                someReload();
                assertNoMemberRefusesAnother();
                if (d.step() == Step.NONE && d.rotation() == Rotation.Steady) {
                    return;
                }
            }
            throw new AssertionError("did not settle in 100 rounds: " + steps);
        }

        void annotate(String key, String value) {
            cluster.getMetadata().setAnnotations(new LinkedHashMap<>(Map.of(key, value)));
        }
    }

    @Test
    void aNewClusterGetsItsCaAndCertificateInOneStepThenNothingChanges() {
        var w = new World(1);
        var d = w.reconcile();
        assertThat(d.step()).isEqualTo(Step.CREATE_CA);
        var state = w.state();
        assertThat(state.member()).isPresent();
        assertThat(state.trusted()).containsExactly(state.ca().orElseThrow().certificate());
        assertThat(Certificates.dnsNames(state.member().get().certificate()))
                .containsExactly("*.kv-headless.prod.svc.cluster.local");
        assertThat(Certificates.notAfter(state.member().get().certificate())).isEqualTo(T0.plus(Duration.ofDays(90)));
        assertThat(Certificates.notAfter(state.ca().get().certificate())).isEqualTo(T0.plus(Duration.ofDays(365)));
        w.allReload();
        var ca = w.ca;
        var member = w.member;
        for (int i = 0; i < 3; i++) {
            assertThat(w.reconcile().step()).isEqualTo(Step.NONE);
        }
        assertThat(w.ca).isSameAs(ca);
        assertThat(w.member).isSameAs(member);
    }

    @Test
    void aCaReplacementGoesTrustReissueDropAndWaitsForEveryMemberAtEachPhase() {
        var w = new World(2);
        w.reconcile();
        w.allReload();
        var oldCa = w.state().ca().orElseThrow().certificate();
        w.annotate(SecurityNames.REPLACE_CA, "1");

        assertThat(w.reconcile().step()).isEqualTo(Step.REPLACE_CA);
        var newCa = w.state().ca().orElseThrow().certificate();
        assertThat(newCa).isNotEqualTo(oldCa);
        assertThat(w.reconcile().step()).isEqualTo(Step.TRUST_CA);
        assertThat(w.state().trusted()).containsExactly(oldCa, newCa);
        // Two members reloaded, one did not: no re-issue yet, however often the operator looks.
        w.loaded[0] = w.loaded[1] = w.versions.size() - 1;
        for (int i = 0; i < 3; i++) {
            var d = w.reconcile();
            assertThat(d.step()).isEqualTo(Step.NONE);
            assertThat(d.rotation()).isEqualTo(Rotation.TrustingNewCa);
            assertThat(d.message()).contains("kv-2");
        }
        w.allReload();
        assertThat(w.reconcile().step()).isEqualTo(Step.ISSUE);
        assertThat(Certificates.signedBy(w.state().member().orElseThrow().certificate(), newCa))
                .isTrue();
        assertThat(w.state().trusted()).containsExactly(oldCa, newCa);
        w.loaded[2] = w.versions.size() - 1;
        assertThat(w.reconcile().rotation()).isEqualTo(Rotation.Reissuing);
        assertThat(w.steps.get(w.steps.size() - 1)).isEqualTo(Step.NONE);
        w.allReload();
        assertThat(w.reconcile().step()).isEqualTo(Step.DROP_OLD_CAS);
        assertThat(w.state().trusted()).containsExactly(newCa);
        var d = w.reconcile();
        assertThat(d.step()).isEqualTo(Step.NONE);
        assertThat(d.rotation()).isEqualTo(Rotation.Steady);
        // The request is remembered: the same annotation value does not replace the CA again.
        w.allReload();
        assertThat(w.reconcile().step()).isEqualTo(Step.NONE);
    }

    @Test
    void renewalsAndReplacementsOverTwoYearsNeverLetTwoMembersRefuseEachOther() {
        for (long seed = 10; seed < 14; seed++) {
            var w = new World(seed);
            w.settle();
            int replacements = 0;
            int renewals = 0;
            for (int day = 0; day < 730; day += 10) {
                w.now = T0.plus(Duration.ofDays(day));
                if (day % 200 == 100) {
                    w.annotate(SecurityNames.RENEW_CERTIFICATE, "day-" + day);
                }
                if (day == 150) {
                    w.annotate(SecurityNames.REPLACE_CA, "day-" + day);
                }
                int before = w.steps.size();
                w.settle();
                var done = w.steps.subList(before, w.steps.size());
                replacements +=
                        (int) done.stream().filter(s -> s == Step.REPLACE_CA).count();
                renewals += (int) done.stream().filter(s -> s == Step.ISSUE).count();
                var state = w.state();
                assertThat(state.trusted())
                        .containsExactly(state.ca().orElseThrow().certificate());
                assertThat(Certificates.notAfter(state.member().orElseThrow().certificate()))
                        .as("day %d: the certificate in use is never within renewBefore of its end once settled", day)
                        .isAfter(w.now.plus(w.tls().renewBefore()).minusSeconds(1));
            }
            // Asked for on day 150 (a CA valid until day 515), then due 30 days before its end (day 485).
            assertThat(replacements).as("seed %d", seed).isEqualTo(2);
            assertThat(renewals).as("seed %d", seed).isGreaterThanOrEqualTo(10);
        }
    }

    @Test
    void aLostCaSecretIsReplacedInPhasesNotBySwitchingCertificates() {
        var w = new World(3);
        w.settle();
        w.allReload();
        w.ca = Optional.empty(); // someone deleted it
        var d = w.reconcile();
        assertThat(d.step()).isEqualTo(Step.CREATE_CA);
        assertThat(d.rotation()).isEqualTo(Rotation.TrustingNewCa);
        w.settle();
        var state = w.state();
        assertThat(state.trusted()).containsExactly(state.ca().orElseThrow().certificate());
        assertThat(w.steps).containsSubsequence(Step.CREATE_CA, Step.TRUST_CA, Step.ISSUE, Step.DROP_OLD_CAS);
    }

    @Test
    void theClientPortsCaReplacementWaitsTheReloadGraceAtEachPhaseAfterTheMembers() {
        var w = new World(5, true);
        w.reconcile();
        w.allReload();
        w.clientLoaded = w.clientVersions.size() - 1;
        var grace = w.set().phaseGrace();
        assertThat(grace).isEqualTo(Duration.ofMinutes(10));
        w.annotate(SecurityNames.REPLACE_CA, "1");
        assertThat(w.reconcile().step()).isEqualTo(Step.REPLACE_CA);
        assertThat(w.reconcile().step()).isEqualTo(Step.TRUST_CA);
        w.allReload();
        // every member trusts the new CA, but a client may not have loaded the two-CA bundle yet
        var d = w.reconcile();
        assertThat(d.step()).isEqualTo(Step.NONE);
        assertThat(d.message()).contains("clients have until");
        w.now = w.now.plus(grace);
        assertThat(w.reconcile().step()).isEqualTo(Step.ISSUE);
        assertThat(Certificates.signedBy(
                        w.clientVersions.get(w.clientVersions.size() - 1).certificate(),
                        w.state().ca().orElseThrow().certificate()))
                .as("the client certificate follows the members' CA")
                .isTrue();
        w.allReload();
        assertThat(w.reconcile().step())
                .as("members use the new certificate: the grace again")
                .isEqualTo(Step.NONE);
        w.now = w.now.plus(grace);
        assertThat(w.reconcile().step()).isEqualTo(Step.DROP_OLD_CAS);
    }

    @Test
    void clientPortRenewalsAndReplacementsOverTwoYearsNeverLetAClientAndAMemberRefuseEachOther() {
        // one seed (5 s): the plan is the members' one, tried with three seeds above; this adds the client's files
        for (long seed = 20; seed < 21; seed++) {
            var w = new World(seed, true);
            w.settle();
            int replacements = 0;
            for (int day = 0; day < 730; day += 10) {
                w.now = T0.plus(Duration.ofDays(day));
                if (day == 150) {
                    w.annotate(SecurityNames.REPLACE_CA, "day-" + day);
                }
                int before = w.steps.size();
                w.settle();
                replacements += (int) w.steps.subList(before, w.steps.size()).stream()
                        .filter(s -> s == Step.REPLACE_CA)
                        .count();
            }
            assertThat(replacements).as("seed %d", seed).isEqualTo(2);
            assertThat(w.clientVersions.size())
                    .as("the client's certificate was renewed and re-issued")
                    .isGreaterThan(8);
        }
    }

    @Test
    void changedNamesReissueTheCertificateFromTheSameCa() {
        var w = new World(4);
        w.settle();
        w.allReload();
        var ca = w.state().ca().orElseThrow().certificate();
        var renamed = Clusters.cluster(s -> {});
        renamed.getMetadata().setNamespace("other");
        w.cluster = renamed;
        assertThat(w.reconcile().step()).isEqualTo(Step.ISSUE);
        assertThat(Certificates.dnsNames(w.state().member().orElseThrow().certificate()))
                .containsExactly("*.kv-headless.other.svc.cluster.local");
        assertThat(w.state().ca().orElseThrow().certificate()).isEqualTo(ca);
    }
}
