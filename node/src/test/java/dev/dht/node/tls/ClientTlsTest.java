package dev.dht.node.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.config.SecuritySettings;
import dev.dht.node.config.SecuritySettings.ClientCertificates;
import dev.dht.node.support.Addresses;
import dev.dht.node.support.RawHttp;
import dev.dht.node.support.TestCertificates;
import dev.dht.node.support.TestNode;
import dev.dht.node.support.TlsClients;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client port under TLS with client certificates required (docs/security.md, "Client TLS"), one node for the
 * class: a client with a certificate of the node's client CA reads and writes, over kept-alive and pipelined
 * connections exactly as in plaintext (KeepAliveFramingTest, SelectorPassTest); what a certificate's subject
 * allows; and each client the port must refuse: plaintext (a 400 saying to use TLS), no certificate, one of another
 * CA, an expired one (TLS alerts), a read-only one writing (403). Scopes are checked from this machine's
 * non-loopback address (a loopback peer has admin rights). The plaintext metrics port serves metrics and status
 * only.
 */
class ClientTlsTest {
    @TempDir
    static Path dir;

    static TestCertificates ca;
    static TestCertificates foreign;
    static TestNode node;
    static InetAddress loopback = InetAddress.getLoopbackAddress();
    static Path caFile;
    static int metricsPort;

    @BeforeAll
    static void start() {
        ca = TestCertificates.authority("client-ca");
        foreign = TestCertificates.authority("foreign-ca");
        TestCertificates.Member server = ca.issueServer(dir.resolve("server"), "node", external());
        caFile = server.ca();
        metricsPort = TestNode.freePort();
        node = TestNode.start(
                dir.resolve("data"),
                c -> c.withSecurity(c.security()
                        .withClientTls(new SecuritySettings.ClientTlsFiles(
                                server.cert(), server.key(), server.ca(), ClientCertificates.REQUIRED))
                        .withMetricsPort(metricsPort)));
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    /** This machine's non-loopback address when it has one (else loopback; the scope tests then skip). */
    private static InetAddress external() {
        try {
            return Addresses.external();
        } catch (org.opentest4j.TestAbortedException none) {
            return InetAddress.getLoopbackAddress();
        }
    }

    private static SSLContext client(String name, String scope) {
        return TlsClients.context(
                ca.issueClient(dir.resolve("client-" + name), name, scope, Duration.ofDays(1)), caFile);
    }

    private static RawHttp connect(SSLContext context, InetAddress address) throws IOException {
        return new RawHttp(TlsClients.connect(context, address, node.port()));
    }

    private static RawHttp.Reply call(RawHttp raw, String method, String pathAndQuery, String body) throws IOException {
        raw.send(method + " " + pathAndQuery + " HTTP/1.1\r\nHost: x\r\n"
                + (body == null ? "" : "Content-Length: " + body.length() + "\r\n") + "\r\n"
                + (body == null ? "" : body));
        return raw.read();
    }

    @Test
    void aClientWithACertificateReadsAndWritesFromAnotherHost() throws Exception {
        InetAddress remote = Addresses.external();
        try (RawHttp raw = connect(client("writer", "read-write"), remote)) {
            assertThat(call(raw, "PUT", "/v0/entity?id=tls-k", "v1").status()).isEqualTo(201);
            RawHttp.Reply read = call(raw, "GET", "/v0/entity?id=tls-k", null);
            assertThat(read.status()).isEqualTo(200);
            assertThat(read.bodyText()).isEqualTo("v1");
            assertThat(call(raw, "DELETE", "/v0/entity?id=tls-k", null).status())
                    .isEqualTo(202);
            assertThat(call(raw, "GET", "/v0/entity?id=tls-k", null).status()).isEqualTo(404);
        }
    }

    @Test
    void aReadOnlyCertificateReadsButCannotWriteAndOneWithoutScopeGetsNothing() throws Exception {
        InetAddress remote = Addresses.external();
        try (RawHttp raw = connect(client("reader", "read-only"), remote)) {
            RawHttp.Reply write = call(raw, "PUT", "/v0/entity?id=ro-k", "v");
            assertThat(write.status()).isEqualTo(403);
            assertThat(write.bodyText())
                    .contains("read-only client certificate")
                    .contains("CN=reader")
                    .contains("needs read-write");
        }
        try (RawHttp raw = connect(client("reader2", "read-only"), remote)) {
            assertThat(call(raw, "GET", "/v0/entity?id=ro-k", null).status())
                    .as("nothing was written")
                    .isEqualTo(404);
            assertThat(call(raw, "GET", "/metrics", null).status()).isEqualTo(200);
            assertThat(call(raw, "POST", "/v0/admin/cleanup", null).status())
                    .as("admin needs an admin scope")
                    .isEqualTo(403);
        }
        try (RawHttp raw = connect(client("nobody", null), remote)) {
            RawHttp.Reply r = call(raw, "GET", "/v0/entity?id=ro-k", null);
            assertThat(r.status()).isEqualTo(401);
            assertThat(r.bodyText()).contains("names no scope").contains("O=read-only");
            assertThat(call(raw, "GET", "/v0/status", null).status())
                    .as("status stays open")
                    .isEqualTo(200);
        }
    }

    @Test
    void keptAliveAndPipelinedConnectionsAreFramedExactlyAsInPlaintext() throws Exception {
        SSLContext context = client("pipeliner", "read-write");
        int connections = 4;
        int requestsPerConnection = 200;
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                int connection = c;
                done.add(pool.submit(() -> {
                    int answered = 0;
                    try (RawHttp raw = connect(context, loopback)) {
                        for (int i = 0; i < requestsPerConnection; i++) {
                            String id = "ka" + connection + "-" + (i / 4 % 20);
                            RawHttp.Reply reply = switch (i % 4) {
                                case 0, 1 -> call(raw, "PUT", "/v0/entity?id=" + id, "v" + i);
                                case 2 -> call(raw, "GET", "/v0/entity?id=" + id, null);
                                default -> call(raw, "DELETE", "/v0/entity?id=" + id, null);
                            };
                            int expected = switch (i % 4) {
                                case 0, 1 -> 201;
                                case 2 -> 200;
                                default -> 202;
                            };
                            assertThat(reply.status())
                                    .as("request %d of connection %d", i, connection)
                                    .isEqualTo(expected);
                            if (expected == 200) {
                                assertThat(reply.bodyText()).isEqualTo("v" + (i - 1));
                            }
                            answered++;
                        }
                        raw.send("GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                        assertThat(raw.read().status()).isEqualTo(200);
                        assertThat(raw.drainUntilClosed())
                                .as("bytes after the last answer")
                                .isEmpty();
                    }
                    return answered;
                }));
            }
            int answered = 0;
            for (Future<Integer> f : done) {
                answered += f.get(120, TimeUnit.SECONDS);
            }
            assertThat(answered).isEqualTo(connections * requestsPerConnection);
        } finally {
            pool.shutdownNow();
        }

        try (RawHttp raw = connect(context, loopback)) {
            StringBuilder batch = new StringBuilder();
            for (int i = 0; i < 50; i++) {
                batch.append("PUT /v0/entity?id=pipe")
                        .append(i)
                        .append(" HTTP/1.1\r\nHost: x\r\n")
                        .append("Content-Length: 1\r\n\r\n")
                        .append((char) ('a' + i % 26));
            }
            batch.append("PUT /v0/entity?id=order HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nv1")
                    .append("GET /v0/entity?id=order HTTP/1.1\r\nHost: x\r\n\r\n")
                    .append("PUT /v0/entity?id=order HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nv2")
                    .append("GET /v0/entity?id=order HTTP/1.1\r\nHost: x\r\n\r\n")
                    .append("DELETE /v0/entity?id=order HTTP/1.1\r\nHost: x\r\n\r\n")
                    .append("GET /v0/entity?id=order HTTP/1.1\r\nHost: x\r\n\r\n");
            raw.send(batch.toString()); // one write: several TLS records, read and decrypted together
            for (int i = 0; i < 50; i++) {
                assertThat(raw.read().status()).as("pipelined PUT %d", i).isEqualTo(201);
            }
            assertThat(raw.read().status()).isEqualTo(201);
            assertThat(raw.read().bodyText()).isEqualTo("v1");
            assertThat(raw.read().status()).isEqualTo(201);
            assertThat(raw.read().bodyText())
                    .as("a read sees the writes before it on its connection")
                    .isEqualTo("v2");
            assertThat(raw.read().status()).isEqualTo(202);
            assertThat(raw.read().status()).isEqualTo(404);
            RawHttp.Reply last = call(raw, "GET", "/v0/entity?id=pipe49", null);
            assertThat(last.bodyText()).isEqualTo(String.valueOf((char) ('a' + 49 % 26)));
        }
    }

    /** A metric of the node, from its metrics port (the client port takes TLS clients only). */
    private static double metric(String name) throws IOException {
        return metric(metricsPort, name);
    }

    private static double metric(int port, String name) throws IOException {
        try (RawHttp raw = new RawHttp(port)) {
            for (String line : call(raw, "GET", "/metrics", null).bodyText().split("\n")) {
                if (line.startsWith(name + " ")) {
                    return Double.parseDouble(line.substring(name.length() + 1).trim());
                }
            }
        }
        throw new AssertionError("the node exports no metric " + name);
    }

    @Test
    void aPlaintextClientIsToldToUseTls() throws Exception {
        double failures = metric("dht_client_tls_handshake_failures_total");
        try (RawHttp raw = new RawHttp(node.port())) {
            raw.send("GET /v0/entity?id=k HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Reply reply = raw.read();
            assertThat(reply.status()).isEqualTo(400);
            assertThat(reply.bodyText()).contains("TLS only").contains("https://");
            assertThat(raw.drainUntilClosed()).as("then the connection ends").isEmpty();
        }
        assertThat(metric("dht_client_tls_handshake_failures_total")).isGreaterThan(failures);
    }

    @Test
    void noCertificateAForeignOneOrAnExpiredOneIsRefusedByTheHandshake() throws Exception {
        assertThat(refused(TlsClients.context(null, caFile))).contains("certificate_required");
        SSLContext foreignClient = TlsClients.context(
                foreign.issueClient(dir.resolve("foreign"), "intruder", "admin", Duration.ofDays(1)), caFile);
        assertThat(refused(foreignClient)).containsAnyOf("bad_certificate", "certificate_unknown", "unknown_ca");
        SSLContext expired = TlsClients.context(
                ca.issueClient(dir.resolve("expired"), "late", "admin", Duration.ofMinutes(-5)), caFile);
        assertThat(refused(expired)).containsAnyOf("bad_certificate", "certificate_unknown", "certificate_expired");
    }

    /**
     * What the client saw when the node refused its certificate: the TLS alert, which TLS 1.3 delivers after the
     * client's side of the handshake, so on its first read (a node that accepted would send nothing: the read times
     * out instead, which fails the assertion).
     */
    private static String refused(SSLContext context) {
        return refused(context, loopback, node.port());
    }

    static String refused(SSLContext context, InetAddress address, int port) {
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> {
            try (var socket = TlsClients.connect(context, address, port)) {
                socket.setSoTimeout(5_000);
                socket.getInputStream().read();
            }
        });
        assertThat(thrown).as("the node answered a client it must refuse").isInstanceOf(SSLException.class);
        return thrown.getMessage();
    }

    @Test
    void aCaDroppedFromTheFilesRefusesItsCertificatesAndEndsTheirConnectionsAfterTheirNextAnswer(@TempDir Path d)
            throws Exception {
        TestCertificates old = TestCertificates.authority("old-client-ca");
        TestCertificates next = TestCertificates.authority("new-client-ca");
        TestCertificates.Member server = old.issueServer(d.resolve("server"), "node");
        // what the clients trust for the server (its certificate stays the old CA's here)
        Path serverCa = java.nio.file.Files.copy(server.ca(), d.resolve("server-ca.crt"));
        int metrics = TestNode.freePort();
        try (TestNode rotating = TestNode.start(
                d.resolve("data"),
                c -> c.withSecurity(c.security()
                        .withClientTls(new SecuritySettings.ClientTlsFiles(
                                server.cert(), server.key(), server.ca(), ClientCertificates.REQUIRED))
                        .withMetricsPort(metrics)))) {
            SSLContext oldClient = TlsClients.context(
                    old.issueClient(d.resolve("old"), "old", "read-write", Duration.ofDays(1)), serverCa);
            try (RawHttp kept = new RawHttp(TlsClients.connect(oldClient, loopback, rotating.port()))) {
                assertThat(call(kept, "PUT", "/v0/entity?id=rot", "v").headers().get("connection"))
                        .isEqualToIgnoringCase("keep-alive");
                // the client CA is replaced: the node now takes certificates of the new CA only
                TestCertificates.trust(server, next);
                org.awaitility.Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> metric(metrics, "dht_client_tls_generation") == 2);
                RawHttp.Reply last = call(kept, "GET", "/v0/entity?id=rot", null);
                assertThat(last.status())
                        .as("the request in flight is answered")
                        .isEqualTo(200);
                assertThat(last.headers().get("connection"))
                        .as("and ends its connection")
                        .isEqualToIgnoringCase("close");
                assertThat(kept.drainUntilClosed()).isEmpty();
            }
            refused(oldClient, loopback, rotating.port()); // a certificate of the dropped CA
            SSLContext newClient = TlsClients.context(
                    next.issueClient(d.resolve("new"), "new", "read-write", Duration.ofDays(1)), serverCa);
            try (RawHttp raw = new RawHttp(TlsClients.connect(newClient, loopback, rotating.port()))) {
                assertThat(call(raw, "GET", "/v0/entity?id=rot", null).status()).isEqualTo(200);
            }
        }
    }

    @Test
    void withOptionalCertificatesATokenOrACertificateWithAScopeWillDo(@TempDir Path d) throws Exception {
        InetAddress remote = Addresses.external();
        TestCertificates.Member server = ca.issueServer(d.resolve("server"), "node", remote);
        Path tokens = d.resolve("tokens");
        java.nio.file.Files.writeString(tokens, "read-write rw-token-0123456789abcdef\n");
        try (TestNode optional = TestNode.start(
                d.resolve("data"),
                c -> c.withSecurity(c.security()
                        .withClientTls(new SecuritySettings.ClientTlsFiles(
                                server.cert(), server.key(), server.ca(), ClientCertificates.OPTIONAL))
                        .withAuthTokens(tokens)))) {
            SSLContext anonymous = TlsClients.context(null, server.ca());
            try (RawHttp raw = new RawHttp(TlsClients.connect(anonymous, remote, optional.port()))) {
                RawHttp.Reply none = call(raw, "GET", "/v0/entity?id=o", null);
                assertThat(none.status()).isEqualTo(401);
                assertThat(none.bodyText()).contains("Bearer").contains("client certificate");
            }
            try (RawHttp raw = new RawHttp(TlsClients.connect(anonymous, remote, optional.port()))) {
                raw.send("PUT /v0/entity?id=o HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer rw-token-0123456789abcdef"
                        + "\r\nContent-Length: 1\r\n\r\nv");
                assertThat(raw.read().status())
                        .as("a token without a certificate")
                        .isEqualTo(201);
            }
            SSLContext reader = TlsClients.context(
                    ca.issueClient(d.resolve("reader"), "reader", "read-only", Duration.ofDays(1)), server.ca());
            try (RawHttp raw = new RawHttp(TlsClients.connect(reader, remote, optional.port()))) {
                assertThat(call(raw, "GET", "/v0/entity?id=o", null).status())
                        .as("the certificate's scope")
                        .isEqualTo(200);
                raw.send("PUT /v0/entity?id=o HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer rw-token-0123456789abcdef"
                        + "\r\nContent-Length: 1\r\n\r\nw");
                assertThat(raw.read().status())
                        .as("a token of a larger scope than the certificate's")
                        .isEqualTo(201);
                raw.send("GET /v0/entity?id=o HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer not-a-token-at-all-0000"
                        + "\r\n\r\n");
                assertThat(raw.read().status())
                        .as("an unknown token, even with a certificate")
                        .isEqualTo(401);
            }
            // an untrusted certificate, even where certificates are optional
            refused(
                    TlsClients.context(
                            foreign.issueClient(d.resolve("f"), "f", "admin", Duration.ofDays(1)), server.ca()),
                    remote,
                    optional.port());
        }
    }

    @Test
    void theMetricsPortServesMetricsAndStatusOnlyInPlaintext() throws Exception {
        try (RawHttp raw = new RawHttp(metricsPort)) {
            RawHttp.Reply metrics = call(raw, "GET", "/metrics", null);
            assertThat(metrics.status()).isEqualTo(200);
            assertThat(metrics.bodyText()).contains("dht_client_tls_generation 1");
            assertThat(call(raw, "GET", "/v0/status", null).status()).isEqualTo(200);
            RawHttp.Reply entity = call(raw, "GET", "/v0/entity?id=k", null);
            assertThat(entity.status()).isEqualTo(403);
            assertThat(entity.bodyText()).contains("metrics port serves GET /metrics and /v0/status only");
        }
    }

    @Test
    void unusableFilesSayWhy(@TempDir Path files) {
        TestCertificates.Member a = ca.issueServer(files.resolve("a"), "a");
        TestCertificates.Member b = ca.issueServer(files.resolve("b"), "b");
        TestCertificates.Member clientOnly = ca.issueClient(files.resolve("c"), "c", null, Duration.ofDays(1));
        TestCertificates.Member expired = ca.issueClient(files.resolve("x"), "x", null, Duration.ofMinutes(-5));
        assertThatThrownBy(() -> ClientTls.open(a.cert(), b.key(), null, ClientCertificates.NONE, Duration.ofHours(1)))
                .hasMessageContaining("key must match");
        assertThatThrownBy(() -> ClientTls.open(
                        expired.cert(), expired.key(), null, ClientCertificates.NONE, Duration.ofHours(1)))
                .hasMessageContaining("not valid now");
        assertThatThrownBy(() -> ClientTls.open(
                        clientOnly.cert(), clientOnly.key(), null, ClientCertificates.NONE, Duration.ofHours(1)))
                .hasMessageContaining("does not allow serverAuth");
        assertThatThrownBy(
                        () -> ClientTls.open(a.cert(), a.key(), null, ClientCertificates.REQUIRED, Duration.ofHours(1)))
                .hasMessageContaining("client certificates need the CAs");
    }
}
