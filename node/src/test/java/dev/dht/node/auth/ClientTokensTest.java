package dev.dht.node.auth;

import static dev.dht.node.auth.TokensTest.ADMIN;
import static dev.dht.node.auth.TokensTest.RO;
import static dev.dht.node.auth.TokensTest.RW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dht.node.support.Addresses;
import dev.dht.node.support.RawHttp;
import dev.dht.node.support.TestNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client tokens (--auth-tokens): every request from a remote client but /v0/status needs a token whose scope
 * allows it; 401 without or with an unknown token (with a Bearer challenge), 403 for too small a scope; the file
 * is re-read when it changes (two tokens valid at once during a rotation). Requests go to this machine's
 * non-loopback address: a loopback peer has admin rights and needs no token.
 */
class ClientTokensTest {
    @TempDir
    static Path dir;

    static Path tokens;
    static TestNode node;
    static InetAddress remote;

    @BeforeAll
    static void start() throws IOException {
        remote = Addresses.external();
        tokens = dir.resolve("tokens");
        write("read-only " + RO + "\nread-write " + RW + "\nadmin " + ADMIN + "\n");
        node = TestNode.start(
                dir.resolve("data"), c -> c.withSecurity(c.security().withAuthTokens(tokens)));
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    private static void write(String content) throws IOException {
        Path tmp = tokens.resolveSibling("tokens.tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, tokens, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    static RawHttp.Reply send(String requestLine, String token, String body) throws IOException {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        String head = requestLine + " HTTP/1.1\r\nHost: dht\r\n"
                + (token == null ? "" : "Authorization: Bearer " + token + "\r\n") + "Content-Length: " + bytes.length
                + "\r\nConnection: close\r\n\r\n";
        try (RawHttp http = new RawHttp(remote, node.port())) {
            http.send(head);
            http.send(bytes);
            return http.read();
        }
    }

    @Test
    void eachScopeAllowsWhatItSays() throws IOException {
        assertThat(send("GET /v0/status", null, null).status())
                .as("probes need no token")
                .isEqualTo(200);

        RawHttp.Reply none = send("GET /v0/entity?id=t1", null, null);
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.headers().get("www-authenticate")).startsWith("Bearer");
        assertThat(none.bodyText()).contains("Authorization: Bearer");
        assertThat(send("GET /v0/entity?id=t1", "wrong-0123456789abcdef", null).status())
                .isEqualTo(401);
        assertThat(send("GET /metrics", null, null).status()).isEqualTo(401);

        RawHttp.Reply readOnlyPut = send("PUT /v0/entity?id=t1", RO, "v");
        assertThat(readOnlyPut.status()).isEqualTo(403);
        assertThat(readOnlyPut.bodyText()).contains("read-only").contains("read-write");
        assertThat(send("GET /v0/entity?id=t1", RO, null).status())
                .as("refused writes changed nothing")
                .isEqualTo(404);

        assertThat(send("PUT /v0/entity?id=t1", RW, "v1").status()).isEqualTo(201);
        assertThat(send("GET /v0/entity?id=t1", RO, null).bodyText()).isEqualTo("v1");
        assertThat(send("GET /v0/entities?start=t", RO, null).status()).isEqualTo(200);
        assertThat(send("GET /metrics", RO, null).status()).isEqualTo(200);
        assertThat(send("GET /v0/admin/movement", RO, null).status()).isEqualTo(200);
        assertThat(send("DELETE /v0/entity?id=t1", RW, null).status()).isEqualTo(202);
        assertThat(send("DELETE /v0/entity?id=t1", ADMIN, null).status())
                .as("admin includes read-write")
                .isEqualTo(202);

        // admin operations: an admin token, not a read-write one
        assertThat(send("POST /v0/admin/cleanup", RW, null).status()).isEqualTo(403);
        assertThat(send("POST /v0/admin/cleanup", ADMIN, null).status())
                .as("served: nothing to clean up")
                .isEqualTo(409);
        assertThat(send("GET /v0/admin/profile?interval=0ms", ADMIN, null).status())
                .as("served: bad interval")
                .isEqualTo(400);
        // no token opens the member protocol on the client port
        assertThat(send("GET /v0/internal/topology", ADMIN, null).status()).isEqualTo(403);
        // a loopback peer has admin rights without a token (kubectl port-forward, sidecars)
        assertThat(node.get("/v0/entity?id=t1").statusCode()).isEqualTo(404);
        assertThat(node.metrics())
                .contains("dht_plane_refused_total{reason=\"token_missing\"}")
                .contains("dht_auth_tokens 3.0");
    }

    @Test
    void rotationAddsANewTokenBeforeTheOldOneGoes() throws IOException {
        String next = "rw-next-0123456789abcdef";
        write("read-only " + RO + "\nread-write " + RW + "\nread-write " + next + "\nadmin " + ADMIN + "\n");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> send("PUT /v0/entity?id=r1", next, "n").status() == 201);
        assertThat(send("PUT /v0/entity?id=r1", RW, "o").status())
                .as("both valid meanwhile")
                .isEqualTo(201);

        write("read-only " + RO + "\nread-write " + next + "\nadmin " + ADMIN + "\n");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> send("PUT /v0/entity?id=r1", RW, "o").status() == 401);
        assertThat(send("PUT /v0/entity?id=r1", next, "n2").status()).isEqualTo(201);

        // a file that does not parse keeps the tokens in force
        write("read-write " + RW + "\nthis is not a token line\n");
        await().atMost(Duration.ofSeconds(20)).until(() -> node.metric("dht_auth_file_rejected_total") == 1.0);
        assertThat(node.metric("dht_auth_tokens")).isEqualTo(3.0);
        assertThat(send("PUT /v0/entity?id=r1", next, "n3").status()).isEqualTo(201);
        assertThat(send("PUT /v0/entity?id=r1", RW, "o").status()).isEqualTo(401);
        write("read-only " + RO + "\nread-write " + RW + "\nadmin " + ADMIN + "\n");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> send("PUT /v0/entity?id=r1", RW, "o").status() == 201);
    }

    @Test
    void aNodeAskedToCheckTokensDoesNotStartWithoutUsableOnes(@TempDir Path other) throws IOException {
        Path bad = other.resolve("bad");
        Files.writeString(bad, "# nothing but a comment\n");
        assertThatThrownBy(() -> TestNode.start(
                        other.resolve("data"), c -> c.withSecurity(c.security().withAuthTokens(bad))))
                .hasMessageContaining("holds no token");
        assertThatThrownBy(() -> TestNode.start(
                        other.resolve("data"),
                        c -> c.withSecurity(c.security().withAuthTokens(other.resolve("missing")))))
                .hasMessageContaining("missing");
    }

    @Test
    void theMemberPortDoesNotTakeClientTokens() {
        var r = node.send(HttpRequest.newBuilder(node.memberUri("/v0/entity?id=m"))
                .header("Authorization", "Bearer " + ADMIN)
                .PUT(HttpRequest.BodyPublishers.ofString("v")));
        assertThat(r.statusCode()).isEqualTo(403);
    }
}
