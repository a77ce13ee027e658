package dev.dht.operator.nodeadmin;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.dht.operator.scaling.MemberMovement;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP member admin against a real HTTP server on loopback: answers, errors and silence. */
class HttpMemberAdminTest {
    static final String IDLE = "{\"state\":\"idle\",\"member\":true,\"topology\":{\"phase\":\"stable\","
            + "\"members\":[\"http://a:8080\"]},\"keys\":{\"left\":0},\"bytes\":{\"left\":0},"
            + "\"cleanup\":{\"pending\":false,\"running\":false}}";

    /** Generous bounds where an answer is expected (a loaded machine must not turn it into a timeout). */
    final HttpMemberAdmin admin = new HttpMemberAdmin(Duration.ofSeconds(10), Duration.ofSeconds(10));
    /** Short bounds where silence is the point. */
    final HttpMemberAdmin impatient = new HttpMemberAdmin(Duration.ofSeconds(10), Duration.ofMillis(300));

    final CountDownLatch release = new CountDownLatch(1);
    final java.util.List<String> authorizations = new java.util.concurrent.CopyOnWriteArrayList<>();
    HttpServer server;
    String base;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/ok/v0/admin/movement", exchange -> reply(exchange, 200, IDLE));
        server.createContext("/busy/v0/admin/movement", exchange -> reply(exchange, 503, "overloaded\n"));
        server.createContext("/html/v0/admin/movement", exchange -> reply(exchange, 200, "<html>hello</html>"));
        // Records the Authorization header of every call (none: "-"), answers 401 without one.
        server.createContext("/auth/", exchange -> {
            String header = exchange.getRequestHeaders().getFirst("Authorization");
            authorizations.add(exchange.getRequestMethod() + " "
                    + exchange.getRequestURI().getPath().substring(5) + " " + (header == null ? "-" : header));
            if (header == null) {
                reply(exchange, 401, "{\"error\":\"a token is required\"}");
            } else {
                reply(exchange, 200, exchange.getRequestURI().getPath().endsWith("/movement") ? IDLE : "{\"ok\":true}");
            }
        });
        server.createContext("/silent/v0/admin/movement", exchange -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            reply(exchange, 200, IDLE);
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        release.countDown();
        server.stop(0);
    }

    static void reply(com.sun.net.httpserver.HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Test
    void anAnswerIsRead() {
        var m = admin.movement(base + "/ok").join();
        assertThat(m.state()).as(String.valueOf(m.problem())).isEqualTo(MemberMovement.State.IDLE);
        assertThat(m.idleOn(java.util.List.of("http://a:8080"))).isTrue();
        assertThat(admin.movement(base + "/ok/").join().state())
                .as("trailing slash")
                .isEqualTo(MemberMovement.State.IDLE);
    }

    @Test
    void anAuthenticatedAdminSendsTheTokenOnEveryCall() {
        var token = admin.authenticated(java.util.Optional.of("s3cret"));
        assertThat(token.movement(base + "/auth").join().state()).isEqualTo(MemberMovement.State.IDLE);
        token.repair(base + "/auth").join();
        assertThat(token.call(base + "/auth", "GET", "/v0/admin/backup", null, Duration.ofSeconds(10))
                        .join()
                        .status())
                .isEqualTo(200);
        assertThat(token.call(
                                base + "/auth",
                                "POST",
                                "/v0/admin/restore",
                                java.util.Map.of("id", "b1"),
                                Duration.ofSeconds(10))
                        .join()
                        .status())
                .isEqualTo(200);
        assertThat(admin.call(base + "/auth", "GET", "/v0/admin/restore", null, Duration.ofSeconds(10))
                        .join()
                        .status())
                .as("no token: the node's 401")
                .isEqualTo(401);
        assertThat(admin.authenticated(java.util.Optional.empty())
                        .movement(base + "/auth")
                        .join()
                        .problem())
                .startsWith("HTTP 401");
        assertThat(authorizations)
                .containsExactly(
                        "GET /v0/admin/movement Bearer s3cret",
                        "GET /v0/admin/repair Bearer s3cret",
                        "GET /v0/admin/backup Bearer s3cret",
                        "POST /v0/admin/restore Bearer s3cret",
                        "GET /v0/admin/restore -",
                        "GET /v0/admin/movement -");
    }

    @Test
    void errorsAndSilenceAreUnknownWithTheReason() throws IOException {
        assertThat(admin.movement(base + "/busy").join().problem()).isEqualTo("HTTP 503: overloaded");
        assertThat(admin.movement(base + "/html").join().problem()).startsWith("not JSON");
        assertThat(impatient.movement(base + "/silent").join().problem()).isEqualTo("timed out");
        int closedPort;
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        assertThat(admin.movement("http://127.0.0.1:" + closedPort).join().state())
                .isEqualTo(MemberMovement.State.UNKNOWN);
        assertThat(admin.movement("not a url").join().problem()).startsWith("bad URL");
    }

    @Test
    void severalMembersAreAskedAtOnceAndEachGetsItsOwnAnswer() {
        var urls = new LinkedHashMap<Integer, String>();
        urls.put(0, base + "/ok");
        urls.put(1, base + "/silent");
        urls.put(2, base + "/busy");
        // Bounds that an answer meets even on a loaded machine and silence exceeds.
        var answers = new HttpMemberAdmin(Duration.ofSeconds(10), Duration.ofSeconds(3)).movements(urls);
        assertThat(answers).containsOnlyKeys(0, 1, 2);
        assertThat(answers.get(0).state()).isEqualTo(MemberMovement.State.IDLE);
        assertThat(answers.get(1).problem()).isEqualTo("timed out");
        assertThat(answers.get(2).problem()).startsWith("HTTP 503");
    }
}
