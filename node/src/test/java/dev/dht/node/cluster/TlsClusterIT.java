package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.dht.node.support.MemberCalls;
import dev.dht.node.support.TestCertificates;
import dev.dht.node.support.TlsClients;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three node processes as in Kubernetes: the member ports take mutual TLS only, the client ports TLS only with
 * client certificates required, each with its own CA. One cluster for the class (its start is most of the cost):
 *
 * <ul>
 *   <li>members: quorum traffic, a member down and back (hints delivered over TLS), and a member CA rotation in
 *       three phases under a quorum writer with no restart (trust both CAs, re-issue every member's certificate from
 *       the new one, drop the old CA): no write fails, every acknowledged key reads back, and afterwards a
 *       certificate of the old CA, or of another CA, gets no answer;</li>
 *   <li>clients: under a quorum load of certificate-holding clients through every member, the nodes' certificates
 *       renewed, then the client CA replaced in the operator's three phases (nodes and clients trust old and new;
 *       every node's and every client's certificate re-issued by the new CA; the old CA dropped), each file
 *       rewritten under the running processes: no request fails, every acknowledged key reads back, and afterwards
 *       a client certificate of the old CA is refused by every node.</li>
 * </ul>
 */
class TlsClusterIT {
    private static final int NODES = 3;

    @TempDir
    static Path dir;

    static TestCertificates oldCa;
    static TestCertificates newCa;
    static List<TestCertificates.Member> files;
    static TestCertificates oldClientCa;
    static TestCertificates newClientCa;
    /** What the nodes take client certificates from. */
    static Path clientCas;
    /** What the clients take the nodes' client-port certificates from. */
    static Path trusted;

    static ProcessCluster c;

    @BeforeAll
    static void start() {
        oldCa = TestCertificates.authority("old-ca");
        newCa = TestCertificates.authority("new-ca");
        files = oldCa.issueMembers(dir, NODES);
        oldClientCa = TestCertificates.authority("old-client-ca");
        newClientCa = TestCertificates.authority("new-client-ca");
        List<TestCertificates.Member> servers = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            servers.add(oldClientCa.issueServer(dir.resolve("server" + i), "node-" + i));
        }
        clientCas = dir.resolve("client-cas.crt");
        TestCertificates.writeCas(clientCas, oldClientCa);
        trusted = dir.resolve("trusted.crt");
        TestCertificates.writeCas(trusted, oldClientCa);
        // the load below is checked for failures, not for speed: a busy machine's first handshakes and a cold
        // JIT's first megabytes of AES must not count as lost writes
        c = ProcessCluster.startTls(
                dir,
                NODES,
                i -> concat(
                        files.get(i).args(),
                        List.of(
                                "--request-timeout",
                                "5s",
                                "--client-tls-cert",
                                servers.get(i).cert().toString(),
                                "--client-tls-key",
                                servers.get(i).key().toString(),
                                "--client-tls-ca",
                                clientCas.toString())),
                client(oldClientCa, "old", trusted));
    }

    @AfterAll
    static void stop() {
        if (c != null) {
            c.close();
        }
    }

    @Test
    void mutualTlsClusterRotatesItsCaUnderLoadWithoutARestart() throws Exception {
        for (int k = 0; k < 20; k++) {
            assertThat(c.node(k % NODES)
                            .put("k" + k, ("v" + k).getBytes(), 3, 3)
                            .status())
                    .isEqualTo(201);
        }
        for (int k = 0; k < 20; k++) {
            assertThat(c.node((k + 1) % NODES).get("k" + k, 3, 3).body())
                    .asString()
                    .isEqualTo("v" + k);
        }

        // a member down: 2/3 writes go on, hints reach it over TLS when it is back
        c.stop(2);
        for (int k = 0; k < 10; k++) {
            assertThat(c.node(k % 2).put("h" + k, ("w" + k).getBytes(), 2, 3).status())
                    .isEqualTo(201);
        }
        c.start(2);
        await().atMost(Duration.ofSeconds(60)).until(() -> c.metricSum("dht_hints_pending", 0, 1) == 0);
        for (int k = 0; k < 10; k++) {
            assertThat(c.node(2).get("h" + k, 1, 1).body())
                    .as("h%d on node 2 alone", k)
                    .asString()
                    .isEqualTo("w" + k);
        }

        // the CA rotation, under a quorum writer
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger acknowledged = new AtomicInteger();
        List<String> failures = new ArrayList<>();
        Thread writer = new Thread(
                () -> {
                    for (int n = 0; writing.get(); n++) {
                        try {
                            Reply r = c.node(n % NODES).put("r" + n, ("x" + n).getBytes(), 2, 3);
                            if (r.status() == 201) {
                                acknowledged.set(n + 1);
                            } else {
                                synchronized (failures) {
                                    failures.add("r" + n + ": " + r.status() + " " + new String(r.body()));
                                }
                            }
                        } catch (RuntimeException e) {
                            synchronized (failures) {
                                failures.add("r" + n + ": " + e);
                            }
                        }
                    }
                },
                "quorum-writer");
        writer.start();
        // phase 1: every member trusts both CAs
        for (TestCertificates.Member m : files) {
            TestCertificates.trust(m, oldCa, newCa);
        }
        awaitGeneration(c, 2);
        // phase 2: every member gets a certificate of the new CA (still trusting both)
        for (int i = 0; i < NODES; i++) {
            newCa.issue(dir.resolve("tls" + i), "member-" + i, Duration.ofDays(1), oldCa);
        }
        awaitGeneration(c, 3);
        // phase 3: the old CA is dropped
        for (TestCertificates.Member m : files) {
            TestCertificates.trust(m, newCa);
        }
        awaitGeneration(c, 4);
        int before = acknowledged.get();
        await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.get() > before + 20);
        writing.set(false);
        writer.join(60_000);
        assertThat(failures).as("writes that failed during the rotation").isEmpty();
        for (int n = 0; n < acknowledged.get(); n += 7) {
            assertThat(c.node((n + 1) % NODES).get("r" + n, 2, 3).body())
                    .as("r%d", n)
                    .asString()
                    .isEqualTo("x" + n);
        }

        // a member still on the old CA, or on another CA, gets no answer now; the new CA's does
        String target = c.url(0);
        // (the probes trust the new CA themselves: the refusal is the node's)
        double failedBefore = c.metric(0, "dht_member_tls_handshake_failures_total");
        assertThat(call(dir.resolve("old"), oldCa, target, newCa)).startsWith("failed");
        assertThat(call(dir.resolve("other"), TestCertificates.authority("other-ca"), target, newCa))
                .startsWith("failed");
        assertThat(call(dir.resolve("new"), newCa, target)).isEqualTo("404");
        assertThat(c.metric(0, "dht_member_tls_handshake_failures_total")).isGreaterThanOrEqualTo(failedBefore + 2);
        // the generations (1 at start, one per phase) prove the files were reloaded in the running processes
    }

    @Test
    void clientCertificatesAndTheirCaRotateUnderAQuorumLoadWithoutAFailedRequest() throws Exception {
        try (QuorumLoad load = new QuorumLoad(c::node, 2, 25, 0, 1, 2)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> load.acknowledged() > 50);

            // renewal: a new certificate and key for every node from the same CA
            long[] renewed = generations(c);
            for (int i = 0; i < NODES; i++) {
                oldClientCa.issueServer(dir.resolve("server" + i), "node-" + i);
            }
            awaitReloaded(c, renewed);
            progress(load);

            // CA replacement 1/3: the nodes take client certificates of both CAs, the clients trust both for the nodes
            long[] phase1 = generations(c);
            TestCertificates.writeCas(clientCas, oldClientCa, newClientCa);
            awaitReloaded(c, phase1);
            TestCertificates.writeCas(trusted, oldClientCa, newClientCa);
            c.useClientTls(client(oldClientCa, "old-trusting-both", trusted));
            progress(load);

            // 2/3: every node's and every client's certificate is the new CA's
            long[] phase2 = generations(c);
            for (int i = 0; i < NODES; i++) {
                newClientCa.issueServer(dir.resolve("server" + i), "node-" + i);
            }
            awaitReloaded(c, phase2);
            c.useClientTls(client(newClientCa, "new", trusted));
            progress(load);

            // 3/3: the old CA is dropped on both sides
            long[] phase3 = generations(c);
            TestCertificates.writeCas(clientCas, newClientCa);
            awaitReloaded(c, phase3);
            TestCertificates.writeCas(trusted, newClientCa);
            c.useClientTls(client(newClientCa, "new-trusting-new", trusted));
            progress(load);

            load.close();
            assertThat(load.failedRequests()).as(load.summary()).isZero();
            assertThat(load.wrongReads()).isEmpty();
            assertThat(load.checkAll(0, 1, 2))
                    .as("acknowledged keys that do not read back")
                    .isEmpty();

            // a client still holding a certificate of the old CA is refused; the new CA's is served
            SSLContext stale = client(oldClientCa, "stale", trusted);
            for (int i = 0; i < NODES; i++) {
                int port = c.process(i).port();
                Throwable refused = catchThrowable(() -> {
                    try (var socket = TlsClients.connect(stale, InetAddress.getLoopbackAddress(), port)) {
                        socket.setSoTimeout(5_000);
                        socket.getInputStream().read();
                    }
                });
                assertThat(refused)
                        .as("node %d and a certificate of the dropped CA", i)
                        .isInstanceOf(SSLException.class);
                assertThat(c.node(i).get("nothing-here").status()).isEqualTo(404);
            }
        }
    }

    private static SSLContext client(TestCertificates ca, String name, Path trusted) {
        return TlsClients.context(
                ca.issueClient(dir.resolve("client-" + name), name, "read-write", Duration.ofDays(1)), trusted);
    }

    /** Each node's client TLS generation (each load of changed files adds one). */
    private static long[] generations(ProcessCluster c) {
        long[] g = new long[NODES];
        for (int i = 0; i < NODES; i++) {
            g[i] = (long) c.metric(i, "dht_client_tls_generation");
        }
        return g;
    }

    /** Every node loaded the files written since it was at these generations. */
    private static void awaitReloaded(ProcessCluster c, long[] before) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            long[] now = generations(c);
            for (int i = 0; i < NODES; i++) {
                if (now[i] <= before[i]) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Some load is acknowledged under what is in force now, before the next step. */
    private static void progress(QuorumLoad load) {
        int before = load.acknowledged();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> load.acknowledged() > before + 40);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("the load stopped getting writes acknowledged: " + load.summary(), e);
        }
    }

    private static void awaitGeneration(ProcessCluster c, int generation) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (int i = 0; i < NODES; i++) {
                if (c.metric(i, "dht_member_tls_generation") < generation) {
                    return false;
                }
            }
            return true;
        });
    }

    /** An internal read on the member at target, from a client holding a certificate of the CA. */
    private static String call(Path files, TestCertificates ca, String target, TestCertificates... alsoTrusted)
            throws Exception {
        return MemberCalls.getWith(
                ca.issue(files, "probe", Duration.ofDays(1), alsoTrusted), target, "/v0/entity?id=nothing-here");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
