package dev.dht.node.cluster;

import dev.dht.node.support.MemberCalls;
import dev.dht.node.support.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three node processes whose member ports take mutual TLS only, as in Kubernetes: quorum traffic, a member down
 * and back (hints delivered over TLS), and a CA rotation in three phases under a quorum writer with no restart
 * (trust both CAs, re-issue every member's certificate from the new one, drop the old CA): no write fails, every
 * acknowledged key reads back, and afterwards a certificate of the old CA, or of another CA, gets no answer.
 */
class TlsClusterIT {
    private static final int NODES = 3;

    @TempDir
    Path dir;

    @Test
    void mutualTlsClusterRotatesItsCaUnderLoadWithoutARestart() throws Exception {
        TestCertificates oldCa = TestCertificates.authority("old-ca");
        TestCertificates newCa = TestCertificates.authority("new-ca");
        List<TestCertificates.Member> files = oldCa.issueMembers(dir, NODES);
        // the load below is checked for failures, not for speed: a busy machine's first handshakes and a cold
        // JIT's first megabytes of AES must not count as lost writes
        try (ProcessCluster c = ProcessCluster.start(dir, NODES, i -> concat(files.get(i).args(),
                List.of("--request-timeout", "5s")))) {
            for (int k = 0; k < 20; k++) {
                assertThat(c.node(k % NODES).put("k" + k, ("v" + k).getBytes(), 3, 3).status()).isEqualTo(201);
            }
            for (int k = 0; k < 20; k++) {
                assertThat(c.node((k + 1) % NODES).get("k" + k, 3, 3).body()).asString().isEqualTo("v" + k);
            }

            // a member down: 2/3 writes go on, hints reach it over TLS when it is back
            c.stop(2);
            for (int k = 0; k < 10; k++) {
                assertThat(c.node(k % 2).put("h" + k, ("w" + k).getBytes(), 2, 3).status()).isEqualTo(201);
            }
            c.start(2);
            await().atMost(Duration.ofSeconds(60)).until(() -> c.metricSum("dht_hints_pending", 0, 1) == 0);
            for (int k = 0; k < 10; k++) {
                assertThat(c.node(2).get("h" + k, 1, 1).body()).as("h%d on node 2 alone", k).asString()
                        .isEqualTo("w" + k);
            }

            // the CA rotation, under a quorum writer
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger acknowledged = new AtomicInteger();
            List<String> failures = new ArrayList<>();
            Thread writer = new Thread(() -> {
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
            }, "quorum-writer");
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
                assertThat(c.node((n + 1) % NODES).get("r" + n, 2, 3).body()).as("r%d", n).asString()
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
            assertThat(c.metric(0, "dht_member_tls_handshake_failures_total"))
                    .isGreaterThanOrEqualTo(failedBefore + 2);
            // the generations (1 at start, one per phase) prove the files were reloaded in the running processes
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
        return MemberCalls.getWith(ca.issue(files, "probe", Duration.ofDays(1), alsoTrusted), target,
                "/v0/entity?id=nothing-here");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
