package dev.dht.node.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.plane.MemberPlane;
import dev.dht.node.support.MemberCalls;
import dev.dht.node.support.RawHttp;
import dev.dht.node.support.TestCertificates;
import dev.dht.node.support.TestNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes in this JVM whose member ports take mutual TLS only: quorum writes and reads, the cluster range
 * (its own blocking TLS sockets) and big values (many TLS records per request) work; a plaintext connection and a
 * member with a certificate from another CA get no answer.
 */
class TlsMemberPlaneTest {
    @TempDir
    static Path dir;

    static TestCertificates ca;
    static final List<TestNode> nodes = new ArrayList<>();
    static final List<TestCertificates.Member> files = new ArrayList<>();

    @BeforeAll
    static void start() {
        ca = TestCertificates.authority("cluster-ca");
        int[] ports = {TestNode.freePort(), TestNode.freePort(), TestNode.freePort()};
        List<String> urls = new ArrayList<>();
        for (int p : ports) {
            urls.add("http://localhost:" + p);
        }
        ClusterMembers members = ClusterMembers.of(urls);
        for (int i = 0; i < ports.length; i++) {
            TestCertificates.Member m = ca.issue(dir.resolve("tls" + i), "member-" + i);
            files.add(m);
            // functional checks, not latency: the first handshakes and a cold JIT's first megabytes of AES
            // took over a second here, the default request timeout
            NodeConfig config = NodeConfig.defaults(ports[i], dir.resolve("node" + i))
                    .withCluster(members, urls.get(i))
                    .withRequestTimeout(Duration.ofSeconds(10));
            nodes.add(TestNode.start(config.withSecurity(
                    config.security().withMemberTls(new SecuritySettings.TlsFiles(m.cert(), m.key(), m.ca())))));
        }
        // New members first ask each other whether the cluster is new and refuse replica reads meanwhile
        // (dev.dht.node.rebuild): a 3/3 read sent before that got 504 (seen once in make test)
        for (TestNode node : nodes) {
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> node.get("/v0/status").statusCode() == 200);
        }
    }

    @AfterAll
    static void stop() {
        nodes.forEach(TestNode::close);
    }

    private static String text(java.net.http.HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void quorumRequestsAndTheClusterRangeGoOverMutualTls() {
        for (int k = 0; k < 30; k++) {
            assertThat(nodes.get(k % 3)
                            .put("/v0/entity?id=k" + k + "&replicas=3/3", ("v" + k).getBytes())
                            .statusCode())
                    .isEqualTo(201);
        }
        for (int k = 0; k < 30; k++) {
            assertThat(text(nodes.get((k + 1) % 3).get("/v0/entity?id=k" + k + "&replicas=3/3")))
                    .isEqualTo("v" + k);
        }
        // a value of many TLS records, written to and read from every replica
        byte[] big = new byte[3 * 1024 * 1024];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        assertThat(nodes.get(0).put("/v0/entity?id=big&replicas=3/3", big).statusCode())
                .isEqualTo(201);
        assertThat(nodes.get(2).get("/v0/entity?id=big&replicas=3/3").body()).isEqualTo(big);
        String range = text(nodes.get(1).get("/v0/entities?start=k0&end=k2"));
        assertThat(range).contains("k0\nv0").contains("k1\nv1").contains("k19\nv19");
        assertThat(nodes.get(0).metric("dht_member_tls_generation")).isEqualTo(1.0);
    }

    @Test
    void aPlaintextPeerGetsNoAnswer() throws IOException {
        try (Socket s = new Socket()) {
            s.setSoTimeout(10_000);
            s.connect(
                    new InetSocketAddress(
                            "127.0.0.1", nodes.get(0).node().server().memberPort()),
                    5000);
            s.getOutputStream().write("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            byte[] answer = in.readNBytes(64);
            assertThat(new String(answer, StandardCharsets.ISO_8859_1)).doesNotContain("HTTP/1.1");
        } catch (java.net.SocketException reset) {
            // a reset is no answer either
        }
        assertThat(nodes.get(0).metric("dht_member_tls_handshake_failures_total"))
                .isPositive();
    }

    @Test
    void aTlsPeerWithoutACertificateGetsNoAnswerAndStoresNothing() throws Exception {
        int memberPort = nodes.get(0).node().server().memberPort();
        // a replica write as a member sends it; the peer trusts the cluster's CA but has no certificate of its own
        String write = "PUT /v0/entity?id=%s HTTP/1.1\r\nHost: localhost\r\nX-Dht-Internal: 1\r\n"
                + "X-Dht-Timestamp: " + HybridLogicalClock.of(System.currentTimeMillis(), 0) + "\r\n"
                + "Content-Length: 2\r\nConnection: close\r\n\r\nno";
        double failedBefore = nodes.get(0).metric("dht_member_tls_handshake_failures_total");
        String answer;
        try (Socket s = withoutCertificate(memberPort)) {
            s.getOutputStream().write(write.formatted("nocert").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            answer = new String(s.getInputStream().readNBytes(64), StandardCharsets.ISO_8859_1);
        } catch (IOException refused) {
            answer = "refused: " + refused; // an alert or a reset: no answer either
        }
        assertThat(answer).doesNotContain("HTTP/1.1");
        assertThat(nodes.get(0).get("/v0/entity?id=nocert&replicas=3/3").statusCode())
                .isEqualTo(404);
        assertThat(nodes.get(0).metric("dht_member_tls_handshake_failures_total"))
                .isGreaterThan(failedBefore);

        // the same write with a member's certificate is stored: the refusal above is the missing certificate's
        try (MemberTls member = MemberTls.open(
                        files.get(1).cert(), files.get(1).key(), files.get(1).ca(), Duration.ofMinutes(1));
                RawHttp http = new RawHttp(member.wrap(connect(memberPort), "127.0.0.1", memberPort))) {
            http.send(write.formatted("withcert"));
            assertThat(http.read().status()).isEqualTo(201);
        }
        assertThat(text(nodes.get(0).get("/v0/entity?id=withcert&replicas=3/3")))
                .isEqualTo("no");
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.setSoTimeout(10_000);
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        return s;
    }

    /** A TLS connection that trusts the cluster's CA and presents no certificate. */
    private static Socket withoutCertificate(int port) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        try (InputStream in = Files.newInputStream(files.get(0).ca())) {
            trusted.setCertificateEntry(
                    "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(trusted);
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(null, tmf.getTrustManagers(), null);
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(connect(port), "127.0.0.1", port, true);
        s.startHandshake(); // TLS 1.3: the client's side completes; the server refuses once it sees no certificate
        return s;
    }

    @Test
    void aMemberWithACertificateFromAnotherCaIsRefused() throws Exception {
        TestCertificates other = TestCertificates.authority("other-ca");
        // its own CA file trusts our CA too: only the node's side can refuse it
        TestCertificates.Member intruder = other.issue(dir.resolve("intruder"), "intruder", Duration.ofDays(1), ca);
        try (MemberTls tls = MemberTls.open(intruder.cert(), intruder.key(), intruder.ca(), Duration.ofSeconds(1));
                PeerClient client = new PeerClient(
                        new MemberPlane(SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET, tls),
                        1,
                        8,
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(10))) {
            String target = "http://localhost:" + nodes.get(1).port();
            assertThat(MemberCalls.get(client, target, "/v0/entity?id=k1")).startsWith("failed");

            // the same client code with a certificate of the cluster's CA is answered: the refusal is the CA's
            try (MemberTls member = MemberTls.open(
                            files.get(0).cert(),
                            files.get(0).key(),
                            files.get(0).ca(),
                            Duration.ofSeconds(1));
                    PeerClient good = new PeerClient(
                            new MemberPlane(SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET, member),
                            1,
                            8,
                            Duration.ofSeconds(5),
                            Duration.ofSeconds(10))) {
                assertThat(MemberCalls.get(good, target, "/v0/entity?id=nothing"))
                        .isEqualTo("404");
            }
        }
    }
}
