package dev.dht.node.support;

import java.nio.file.Path;
import java.util.List;

/**
 * {@code -Ddht.test.memberTls=true} runs every multi-process cluster test (ProcessCluster, ScalingCluster) with
 * mutual TLS on the member plane: each node gets a certificate of one CA per test JVM. Off by default (the
 * dedicated TLS tests always run it); the switch exists to run the whole cluster suite over TLS:
 * {@code scripts/mvn -pl node verify -Ddht.test.memberTls=true}.
 */
public final class MemberTlsMode {
    private static TestCertificates authority;
    private static dev.dht.node.tls.MemberTls probe;

    private MemberTlsMode() {}

    public static boolean on() {
        return Boolean.getBoolean("dht.test.memberTls");
    }

    /**
     * The TLS options of node i of a cluster whose files live in dir: none when the mode is off, or when the test
     * gives the node its own ({@code given} holds {@code --member-tls-cert}).
     */
    public static synchronized List<String> args(Path dir, int node, List<String> given) {
        if (!on() || given.contains("--member-tls-cert")) {
            return List.of();
        }
        authority();
        Path files = dir.resolve("member-tls").resolve("node" + node);
        TestCertificates.Member m = java.nio.file.Files.exists(files.resolve("tls.crt"))
                ? new TestCertificates.Member(
                        files.resolve("tls.crt"), files.resolve("tls.key"), files.resolve("ca.crt"))
                : authority.issue(files, "node-" + node);
        return m.args();
    }

    private static TestCertificates authority() {
        if (authority == null) {
            authority = TestCertificates.authority("test-cluster-ca");
        }
        return authority;
    }

    /**
     * A connected socket to a member port on this machine: plaintext, or (mode on) TLS with a certificate of the
     * test CA, as a member would present.
     */
    public static synchronized java.net.Socket connect(int memberPort) throws java.io.IOException {
        java.net.Socket s = new java.net.Socket();
        s.connect(new java.net.InetSocketAddress("127.0.0.1", memberPort), 5000);
        s.setSoTimeout(30_000);
        if (!on()) {
            return s;
        }
        if (probe == null) {
            Path files = java.nio.file.Files.createTempDirectory("dht-test-probe-tls");
            TestCertificates.Member m = authority().issue(files, "test-probe");
            probe = dev.dht.node.tls.MemberTls.open(m.cert(), m.key(), m.ca(), java.time.Duration.ofHours(1));
        }
        return probe.wrap(s, "127.0.0.1", memberPort);
    }
}
