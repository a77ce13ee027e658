package dev.dht.node.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.support.MemberCalls;
import dev.dht.node.support.TestCertificates;
import dev.dht.node.support.TestNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running node picks up rewritten member TLS files without a restart, as peers see it on new connections: a
 * member of a second CA is refused, answered once the node's CA file also names that CA, and a member of the first
 * CA is refused once it is dropped; the node's own certificate, re-issued by the second CA, is what it presents.
 */
class TlsRotationTest {
    @TempDir
    Path dir;

    @Test
    void rewrittenFilesAreInForceOnNewConnectionsWithoutARestart() throws Exception {
        TestCertificates oldCa = TestCertificates.authority("old-ca");
        TestCertificates newCa = TestCertificates.authority("new-ca");
        int port = TestNode.freePort();
        String url = "http://localhost:" + port;
        TestCertificates.Member nodeFiles = oldCa.issue(dir.resolve("node"), "node");
        NodeConfig config = NodeConfig.defaults(port, dir.resolve("data"))
                .withCluster(ClusterMembers.of(List.of(url)), url)
                .withRequestTimeout(Duration.ofSeconds(10));
        // the probes trust both CAs themselves: whether they are answered is the node's decision alone
        TestCertificates.Member oldMember = oldCa.issue(dir.resolve("old"), "old-member", Duration.ofDays(1), newCa);
        TestCertificates.Member newMember = newCa.issue(dir.resolve("new"), "new-member", Duration.ofDays(1), oldCa);
        try (TestNode node = TestNode.start(config.withSecurity(config.security()
                .withMemberTls(new SecuritySettings.TlsFiles(nodeFiles.cert(), nodeFiles.key(), nodeFiles.ca()))))) {
            assertThat(probe(oldMember, url)).isEqualTo("404");
            assertThat(probe(newMember, url)).startsWith("failed");

            // phase 1: the node trusts both CAs
            TestCertificates.trust(nodeFiles, oldCa, newCa);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> probe(newMember, url).equals("404"));
            assertThat(probe(oldMember, url)).isEqualTo("404");

            // phase 2: its own certificate from the new CA; phase 3: the old CA dropped
            newCa.issue(dir.resolve("node"), "node", Duration.ofDays(1), oldCa);
            TestCertificates.trust(nodeFiles, newCa);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> probe(oldMember, url).startsWith("failed"));
            assertThat(probe(newMember, url)).isEqualTo("404");
            // one load at start, one for phase 1, at least one for phases 2 and 3 (the poller may see them at once)
            assertThat(node.metric("dht_member_tls_generation")).isGreaterThanOrEqualTo(3.0);
        }
    }

    /** An internal read from a fresh client (new connections) holding the member's files. */
    private static String probe(TestCertificates.Member member, String url) throws Exception {
        return MemberCalls.getWith(member, url, "/v0/entity?id=nothing-here");
    }
}
