package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.storage.Record;
import dev.dht.node.support.RawHttp;
import dev.dht.node.support.TestNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every row of the API contract over the wire: statuses, framing (Content-Length or chunked on every response),
 * plain-text reasons, 405/413, replicas validation, encoding of ids. A plain JDK client and raw sockets.
 */
class ContractTest {
    @TempDir
    static Path dir;

    static TestNode node;

    @BeforeAll
    static void start() {
        node = TestNode.start(dir, c -> c.withMaxBody(1024));
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    private static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void statusIs200WhenServing() {
        HttpResponse<byte[]> r = node.get("/v0/status");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(text(r)).isEqualTo("OK\n");
    }

    @Test
    void entityLifecycleWithTheJdkClient() {
        assertThat(node.get("/v0/entity?id=jdk").statusCode()).isEqualTo(404);
        assertThat(node.put("/v0/entity?id=jdk", "v1".getBytes()).statusCode()).isEqualTo(201);
        assertThat(node.put("/v0/entity?id=jdk", "v2".getBytes()).statusCode())
                .as("overwrite")
                .isEqualTo(201);
        HttpResponse<byte[]> got = node.get("/v0/entity?id=jdk");
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(text(got)).isEqualTo("v2");
        assertThat(node.delete("/v0/entity?id=jdk").statusCode()).isEqualTo(202);
        assertThat(node.get("/v0/entity?id=jdk").statusCode()).isEqualTo(404);
        assertThat(node.delete("/v0/entity?id=jdk").statusCode()).as("absent").isEqualTo(202);
    }

    @Test
    void everyResponseIsFramed() throws Exception {
        List<String> requests = List.of(
                "GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n",
                "PUT /v0/entity?id=framed HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab",
                "GET /v0/entity?id=framed HTTP/1.1\r\nHost: x\r\n\r\n",
                "DELETE /v0/entity?id=framed HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v0/entity?id=framed HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v0/entity HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /abracadabra HTTP/1.1\r\nHost: x\r\n\r\n",
                "POST /v0/entity?id=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
                "GET /v0/entities?start=a&end=b HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        List<Integer> expected = List.of(200, 201, 200, 202, 404, 400, 400, 405, 200, 200);
        try (RawHttp raw = new RawHttp(node.port())) {
            for (int i = 0; i < requests.size(); i++) {
                raw.send(requests.get(i));
                RawHttp.Reply reply = raw.read(); // throws unless Content-Length or chunked
                assertThat(reply.status()).as(requests.get(i)).isEqualTo(expected.get(i));
                assertThat(reply.headers())
                        .as(requests.get(i))
                        .containsAnyOf(
                                java.util.Map.entry("transfer-encoding", "chunked"),
                                java.util.Map.entry("content-length", String.valueOf(reply.body().length)));
                assertThat(reply.headers().get("connection")).isEqualToIgnoringCase("Keep-Alive");
            }
        }
    }

    @ParameterizedTest
    @CsvSource({
        "/v0/entity?id=, parameter id must not be empty",
        "/v0/entity, missing parameter: id",
        "/v0/entity?key=1, missing parameter: id",
        "/abracadabra, unknown path /abracadabra",
        "/v0/admin/nothing, unknown path /v0/admin/nothing",
        "/v0/entities, missing parameter: start",
        "/v0/entities?end=end, missing parameter: start",
        "/v0/entities?start=, parameter start must not be empty",
        "/v0/entities?start=&end=, parameter start must not be empty",
        "/v0/entities?start=a&end=, parameter end must not be empty"
    })
    void badRequestsGet400WithAReason(String path, String reason) {
        HttpResponse<byte[]> r = node.get(path);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(text(r)).contains(reason);
        assertThat(r.headers().firstValue("content-type")).hasValue("text/plain; charset=utf-8");
    }

    @Test
    void malformedPercentEncodingIs400() throws Exception {
        try (RawHttp raw = new RawHttp(node.port())) {
            raw.send("GET /v0/entity?id=%zz HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Reply reply = raw.read();
            assertThat(reply.status()).isEqualTo(400);
            assertThat(reply.bodyText()).contains("not properly percent-encoded");
        }
    }

    @Test
    void emptyIdIs400ForEveryMethod() {
        assertThat(node.get("/v0/entity?id=").statusCode()).isEqualTo(400);
        assertThat(node.put("/v0/entity?id=", new byte[] {1}).statusCode()).isEqualTo(400);
        assertThat(node.delete("/v0/entity?id=").statusCode()).isEqualTo(400);
    }

    @Test
    void wrongMethodOnAKnownPathIs405WithAllow() {
        record Case(String method, String path, String allow) {}
        for (Case c : List.of(
                new Case("POST", "/v0/entity?id=1", "GET, PUT, DELETE"),
                new Case("PATCH", "/v0/entity?id=1", "GET, PUT, DELETE"),
                new Case("PUT", "/v0/entities?start=a", "GET"),
                new Case("DELETE", "/v0/status", "GET"),
                new Case("POST", "/metrics", "GET"),
                new Case("PUT", "/v0/admin/profile", "GET"))) {
            HttpResponse<byte[]> r = node.send(
                    HttpRequest.newBuilder(node.uri(c.path())).method(c.method(), HttpRequest.BodyPublishers.noBody()));
            assertThat(r.statusCode()).as(c.method() + " " + c.path()).isEqualTo(405);
            assertThat(r.headers().firstValue("allow")).hasValue(c.allow());
            assertThat(text(r)).contains(c.method() + " is not allowed");
        }
    }

    @Test
    void bodyOverTheLimitIs413AndAtTheLimitIsStored() throws Exception {
        assertThat(node.put("/v0/entity?id=limit", new byte[1024]).statusCode()).isEqualTo(201);
        try (RawHttp raw = new RawHttp(node.port())) {
            raw.send("PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nContent-Length: 1025\r\n\r\n");
            RawHttp.Reply reply = raw.read();
            assertThat(reply.status()).isEqualTo(413);
            assertThat(reply.bodyText()).contains("larger than the limit of 1024 bytes");
            assertThat(reply.headers().get("connection")).isEqualToIgnoringCase("close");
        }
        assertThat(node.get("/v0/entity?id=big").statusCode()).isEqualTo(404);
    }

    @Test
    void chunkedRequestBodiesAreRefusedNotMisparsed() throws Exception {
        try (RawHttp raw = new RawHttp(node.port())) {
            raw.send("PUT /v0/entity?id=chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\n0\r\n\r\n");
            RawHttp.Reply reply = raw.read();
            assertThat(reply.status()).isEqualTo(411);
            assertThat(reply.bodyText()).contains("Content-Length");
            assertThat(raw.drainUntilClosed()).isEmpty();
        }
        assertThat(node.get("/v0/entity?id=chunky").statusCode()).isEqualTo(404);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0/1", "2/1", "1/2", "2/3", "3/3", "abc", "1/", "/1", "1/1/1"})
    void replicasOtherThan1Of1Are400OnASingleNode(String replicas) {
        String path = "/v0/entity?id=r&replicas=" + replicas;
        assertThat(node.get(path).statusCode()).isEqualTo(400);
        assertThat(node.put(path, new byte[] {1}).statusCode()).isEqualTo(400);
        assertThat(node.delete(path).statusCode()).isEqualTo(400);
        assertThat(text(node.get(path))).contains("replicas");
    }

    @Test
    void replicas1Of1IsTheWholeCluster() {
        String path = "/v0/entity?id=one&replicas=1/1";
        assertThat(node.put(path, "x".getBytes()).statusCode()).isEqualTo(201);
        assertThat(text(node.get(path))).isEqualTo("x");
        assertThat(node.delete(path).statusCode()).isEqualTo(202);
        assertThat(node.get(path).statusCode()).isEqualTo(404);
    }

    @Test
    void idsArePercentDecodedAndStoredAsUtf8() {
        assertThat(node.put("/v0/entity?id=a%26b%3D%D0%BA", "amp".getBytes()).statusCode())
                .isEqualTo(201);
        assertThat(text(node.get("/v0/entity?id=a%26b%3D%D0%BA"))).isEqualTo("amp");
        assertThat(text(node.get("/v0/entities?start=a%26b&end=a%26c"))).isEqualTo("a&b=к\namp");
    }

    @Test
    void internalRequestsActOnLocalStorageWithTheirTimestamps() {
        HttpResponse<byte[]> absent = node.send(HttpRequest.newBuilder(node.memberUri("/v0/entity?id=internal1"))
                .header("X-Dht-Internal", "1")
                .header("X-Dht-Clock", "1")
                .GET());
        assertThat(absent.statusCode()).isEqualTo(404);
        assertThat(absent.headers().firstValue("X-Dht-Clock")).isPresent();

        long ts = HybridLogicalClock.of(System.currentTimeMillis() + 5_000, 0);
        HttpResponse<byte[]> put = node.send(HttpRequest.newBuilder(node.memberUri("/v0/entity?id=internal1"))
                .header("X-Dht-Internal", "1")
                .header("X-Dht-Timestamp", Long.toString(ts))
                .PUT(HttpRequest.BodyPublishers.ofString("v1")));
        assertThat(put.statusCode()).isEqualTo(201);
        // the clock merged the timestamp it was sent: its reading is past it
        assertThat(Long.parseLong(put.headers().firstValue("X-Dht-Clock").orElseThrow()))
                .isGreaterThan(ts);

        HttpResponse<byte[]> get = node.send(HttpRequest.newBuilder(node.memberUri("/v0/entity?id=internal1"))
                .header("X-Dht-Internal", "1")
                .GET());
        assertThat(get.statusCode()).isEqualTo(200);
        Record stored = Record.decode(get.body());
        assertThat(stored.timestamp()).isEqualTo(ts);
        assertThat(stored.value()).isEqualTo("v1".getBytes());

        HttpResponse<byte[]> older = node.send(HttpRequest.newBuilder(node.memberUri("/v0/entity?id=internal1"))
                .header("X-Dht-Internal", "1")
                .header("X-Dht-Timestamp", Long.toString(ts - 1))
                .DELETE());
        assertThat(older.statusCode())
                .as("a write older than the stored record")
                .isEqualTo(409);
        assertThat(older.headers().firstValue("X-Dht-Timestamp")).contains(Long.toString(ts));

        HttpResponse<byte[]> noTimestamp = node.send(HttpRequest.newBuilder(node.memberUri("/v0/entity?id=internal1"))
                .header("X-Dht-Internal", "1")
                .DELETE());
        assertThat(noTimestamp.statusCode()).isEqualTo(400);
        // a client write through the coordinator still wins: the clock has merged the newer timestamp
        assertThat(node.delete("/v0/entity?id=internal1").statusCode()).isEqualTo(202);
        assertThat(node.get("/v0/entity?id=internal1").statusCode()).isEqualTo(404);
    }

    @Test
    void rangeSendsOneChunkPerRecord() throws Exception {
        node.put("/v0/entity?id=chunk1", "value1".getBytes());
        node.put("/v0/entity?id=chunk2", new byte[0]);
        node.put("/v0/entity?id=chunk3", "value3".getBytes());
        try (RawHttp raw = new RawHttp(node.port())) {
            raw.send("GET /v0/entities?start=chunk1&end=chunk4 HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Reply reply = raw.read();
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.headers())
                    .containsEntry("transfer-encoding", "chunked")
                    .doesNotContainKey("content-length");
            assertThat(reply.chunks())
                    .extracting(c -> new String(c, StandardCharsets.UTF_8))
                    .containsExactly("chunk1\nvalue1", "chunk2\n", "chunk3\nvalue3");
            // the connection stays usable after a streamed response
            raw.send("GET /v0/entities?start=chunk9 HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Reply empty = raw.read();
            assertThat(empty.status()).isEqualTo(200);
            assertThat(empty.chunks()).isEmpty();
        }
    }

    @Test
    void rangeWithStartAfterEndIsEmpty() {
        HttpResponse<byte[]> r = node.get("/v0/entities?start=z&end=a");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEmpty();
    }

    @Test
    void headOnStatusHasNoBody() throws Exception {
        try (RawHttp raw = new RawHttp(node.port())) {
            raw.send("HEAD /v0/status HTTP/1.1\r\nHost: x\r\n\r\nGET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");
            // HEAD: headers only; the pipelined GET right behind it must parse cleanly.
            RawHttp.Reply head = raw.readHead();
            assertThat(head.status()).isEqualTo(200);
            assertThat(raw.read().bodyText()).isEqualTo("OK\n");
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (RawHttp raw = new RawHttp(node.port())) {
            StringBuilder all = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                all.append("PUT /v0/entity?id=pipe")
                        .append(i)
                        .append(" HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n")
                        .append((char) ('a' + i));
                all.append("GET /v0/entity?id=pipe").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
            }
            raw.send(all.toString());
            for (int i = 0; i < 20; i++) {
                assertThat(raw.read().status()).isEqualTo(201);
                RawHttp.Reply got = raw.read();
                assertThat(got.status()).isEqualTo(200);
                assertThat(got.bodyText()).isEqualTo(String.valueOf((char) ('a' + i)));
            }
        }
    }

    /**
     * Answers given while one read is processed are written together at its end (the session's cork): a close
     * requested by the last request must not drop them, and a streamed range in between keeps its place.
     */
    @Test
    void pipelinedAnswersKeepTheirOrderAroundARangeAndBeforeAConnectionClose() throws Exception {
        try (RawHttp raw = new RawHttp(node.port())) {
            raw.send("PUT /v0/entity?id=cork1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nA"
                    + "GET /v0/entities?start=cork&end=corl HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "PUT /v0/entity?id=cork2 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nB"
                    + "GET /v0/entity?id=cork2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(201);
            RawHttp.Reply range = raw.read();
            assertThat(range.status()).isEqualTo(200);
            assertThat(range.bodyText()).isEqualTo("cork1\nA");
            assertThat(raw.read().status()).isEqualTo(201);
            RawHttp.Reply last = raw.read();
            assertThat(last.status()).isEqualTo(200);
            assertThat(last.bodyText()).isEqualTo("B");
            assertThat(raw.drainUntilClosed())
                    .as("closed after the last answer, nothing more")
                    .isEmpty();
        }
    }
}
