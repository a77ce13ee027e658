package dev.dht.node.plane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.json.Json;
import dev.dht.node.storage.Record;
import dev.dht.node.support.Addresses;
import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.RawHttp;
import dev.dht.node.support.TestNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attacks of issue 21, sent to a real node process started as in Kubernetes (with --cluster-file), each on
 * the client port with no credentials, some from this machine's non-loopback address (a remote peer); then,
 * as an ordinary client, that nothing changed: values, the clock, the member list and topology, the stored
 * records (read as a member would, on the loopback member port). Then the same kind of attack on the member port
 * itself (what a faulty member could send): far-ahead timestamps and clock readings are refused, and a topology
 * header naming a non-member is never followed.
 */
class AttackIT {
    /** Just below the end of the clock's range: it once made the clock wrap and a worker spin forever. */
    static final long END_OF_RANGE = Long.MAX_VALUE - 1;
    /** 2,173 years ahead, as the issue observed after one request. */
    static final long YEARS_AHEAD = HybridLogicalClock.of(System.currentTimeMillis() + 2173L * 365 * 86_400_000L, 0);

    static final int KEYS = 8;

    @TempDir
    static Path dir;

    static NodeProcess node;
    static Listener evil;
    static InetAddress external;

    @BeforeAll
    static void start() throws Exception {
        external = Addresses.external();
        evil = new Listener();
        int port = TestNode.freePort();
        Path members = dir.resolve("members");
        Files.writeString(members, "http://localhost:" + port + "\n");
        node = NodeProcess.start(
                        dir,
                        "node",
                        port,
                        List.of(
                                "--port",
                                String.valueOf(port),
                                "--data-dir",
                                dir.resolve("data").toString(),
                                "--cluster-file",
                                members.toString()),
                        Map.of())
                .awaitReady();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Boolean.TRUE.equals(topology().get("decided")));
        for (int i = 0; i < KEYS; i++) {
            assertThat(node.put("/v0/entity?id=k" + i, ("v" + i).getBytes()).statusCode())
                    .isEqualTo(201);
        }
    }

    @AfterAll
    static void stop() throws IOException {
        if (node != null) {
            node.close();
        }
        if (evil != null) {
            evil.close();
        }
    }

    @Test
    void everyAttackOnTheClientPortIsRefusedAndChangesNothing() throws Exception {
        Snapshot before = Snapshot.take();
        String forgedTopology = "99.s.0000000000000000.- " + evil.url();
        int port = node.port();
        for (InetAddress from : new InetAddress[] {InetAddress.getLoopbackAddress(), external}) {
            // a replica write at any timestamp, a replica delete, far-ahead clocks, in any header spelling
            assertRefused(
                    from,
                    port,
                    "PUT /v0/entity?id=k0",
                    "forged",
                    "X-Dht-Internal: 1",
                    "X-Dht-Timestamp: " + END_OF_RANGE);
            assertRefused(
                    from,
                    port,
                    "DELETE /v0/entity?id=k1",
                    null,
                    "X-Dht-Internal: 1",
                    "X-Dht-Timestamp: " + END_OF_RANGE);
            assertRefused(from, port, "GET /v0/entity?id=k2", null, "X-Dht-Internal: 1", "X-Dht-Clock: " + YEARS_AHEAD);
            assertRefused(from, port, "PUT /v0/entity?id=k2", "forged", "X-Dht-Clock: " + YEARS_AHEAD);
            assertRefused(
                    from,
                    port,
                    "PUT /v0/entity?id=k3",
                    "forged",
                    "x-dht-internal: 1",
                    "x-dht-timestamp: " + END_OF_RANGE);
            // the spinning worker: a replica write at the end of the range, then two ordinary PUTs
            assertRefused(
                    from,
                    port,
                    "PUT /v0/entity?id=spin",
                    "forged",
                    "X-Dht-Internal: 1",
                    "X-Dht-Timestamp: " + END_OF_RANGE);
            assertThat(send(from, port, "PUT /v0/entity?id=spin", "one").status())
                    .isEqualTo(201);
            assertThat(send(from, port, "PUT /v0/entity?id=spin", "two").status())
                    .isEqualTo(201);
            // records streamed "by a move", topology headers naming another address, the member paths
            assertRefused(from, port, "PUT /v0/internal/records", batch("k4", END_OF_RANGE, "forged"));
            assertRefused(from, port, "GET /v0/admin/topology", null, "X-Dht-Topology: " + forgedTopology);
            assertRefused(
                    from, port, "GET /v0/entity?id=k5", null, "X-Dht-Internal: 1", "X-Dht-Topology: " + forgedTopology);
            assertRefused(from, port, "GET /v0/internal/topology", null, "X-Dht-Topology: " + forgedTopology);
        }
        // admin operations from a remote peer: the profiler (with no lower bound on its interval once), cleanup
        assertRefused(external, port, "GET /v0/admin/profile?event=cpu&duration=1s&interval=1ms", null);
        assertRefused(external, port, "POST /v0/admin/cleanup", null);
        assertThat(send(InetAddress.getLoopbackAddress(), port, "GET /v0/admin/profile?duration=1s&interval=0ms", null)
                        .status())
                .as("the interval is bounded even for an admin")
                .isEqualTo(400);
        // the member port is not reachable from another address at all without TLS
        assertThatThrownBy(() -> {
                    try (Socket s = new Socket()) {
                        s.connect(
                                new InetSocketAddress(external, port + SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET),
                                2000);
                    }
                })
                .isInstanceOf(IOException.class);

        // nothing was learnt from the forged topology: the address it named is never asked, now or a bit later
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> evil.connections() == 0);
        Snapshot after = Snapshot.take();
        assertThat(after.values).isEqualTo(before.values);
        assertThat(after.records).as("stored records, timestamps included").isEqualTo(before.records);
        assertThat(after.topology).isEqualTo(before.topology);
        assertThat(node.metric("dht_cluster_members")).isEqualTo(1.0);
        assertThat(HybridLogicalClock.physicalMillis(after.clock))
                .as("the clock follows the wall clock")
                .isLessThan(System.currentTimeMillis() + 5_000);
        assertThat(text(node.get("/v0/entity?id=spin"))).isEqualTo("two");
        // busy until just after its answer is sent: the last worker gets a moment to return; a spinning one never would
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(node.metric("dht_workers_busy"))
                        .as("no worker left spinning")
                        .isZero());
        assertThat(node.isAlive()).isTrue();
    }

    @Test
    void onTheMemberPortFarAheadStampsAreRefusedAndNonMembersNeverAsked() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        int member = node.port() + SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET;
        double refusedBefore = node.metric("dht_clock_refused_total");
        RawHttp.Reply write = send(
                loopback,
                member,
                "PUT /v0/entity?id=m1",
                "forged",
                "X-Dht-Internal: 1",
                "X-Dht-Timestamp: " + END_OF_RANGE);
        assertThat(write.status()).isEqualTo(400);
        assertThat(write.bodyText()).contains("--max-clock-ahead");
        RawHttp.Reply read = send(
                loopback, member, "GET /v0/entity?id=m1", null, "X-Dht-Internal: 1", "X-Dht-Clock: " + YEARS_AHEAD);
        assertThat(read.status()).isEqualTo(404);
        assertThat(HybridLogicalClock.physicalMillis(
                        Long.parseLong(read.headers().get("x-dht-clock"))))
                .as("a far-ahead reading is not merged")
                .isLessThan(System.currentTimeMillis() + 5_000);
        // the spinning worker's sequence, on the member port: both PUTs are answered
        assertThat(node.put("/v0/entity?id=m1", "one".getBytes()).statusCode()).isEqualTo(201);
        assertThat(node.put("/v0/entity?id=m1", "two".getBytes()).statusCode()).isEqualTo(201);
        assertThat(text(node.get("/v0/entity?id=m1"))).isEqualTo("two");

        long now = HybridLogicalClock.of(System.currentTimeMillis(), 0);
        byte[] body = concat(batch("m2", END_OF_RANGE, "forged"), batch("m3", now, "fine"));
        RawHttp.Reply records = send(loopback, member, "PUT /v0/internal/records", body, "X-Dht-Internal: 1");
        assertThat(records.status()).isEqualTo(200);
        assertThat(records.bodyText()).contains("stored 1 of 2").contains("1 refused");
        assertThat(node.get("/v0/entity?id=m2").statusCode()).isEqualTo(404);
        assertThat(text(node.get("/v0/entity?id=m3"))).isEqualTo("fine");
        assertThat(node.metric("dht_clock_refused_total")).isGreaterThanOrEqualTo(refusedBefore + 3);

        // a topology header naming a non-member is never followed, even on the member port
        Map<String, Object> topologyBefore = topology();
        send(
                loopback,
                member,
                "GET /v0/internal/topology",
                null,
                "X-Dht-Internal: 1",
                "X-Dht-Topology: 99.s.0000000000000000.- " + evil.url());
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> evil.connections() == 0);
        assertThat(topology()).isEqualTo(topologyBefore);
    }

    // ---- what an ordinary client (and a member, for the stored records) sees ------------------------------------

    /** Values, stored records, topology and clock, as read after seeding. */
    private record Snapshot(
            Map<String, String> values, Map<String, String> records, Map<String, Object> topology, long clock) {
        static Snapshot take() throws Exception {
            Map<String, String> values = new LinkedHashMap<>();
            Map<String, String> records = new LinkedHashMap<>();
            for (int i = 0; i < KEYS; i++) {
                values.put("k" + i, text(node.get("/v0/entity?id=k" + i)));
                HttpResponse<byte[]> stored = node.send(
                        HttpRequest.newBuilder(node.memberUri("/v0/entity?id=k" + i))
                                .header("X-Dht-Internal", "1")
                                .GET(),
                        Duration.ofSeconds(30));
                Record r = Record.decode(stored.body());
                records.put("k" + i, r.timestamp() + "/" + new String(r.value(), StandardCharsets.UTF_8));
            }
            HttpResponse<byte[]> report = node.get("/v0/admin/topology");
            long clock =
                    Long.parseLong(report.headers().firstValue("X-Dht-Clock").orElseThrow());
            Map<String, Object> topology = Json.parseObject(text(report));
            return new Snapshot(values, records, topology, clock);
        }
    }

    private static Map<String, Object> topology() throws Exception {
        return Json.parseObject(text(node.get("/v0/admin/topology")));
    }

    private static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static void assertRefused(InetAddress from, int port, String requestLine, Object body, String... headers)
            throws IOException {
        RawHttp.Reply r = send(from, port, requestLine, body, headers);
        assertThat(r.status())
                .as(requestLine + " " + List.of(headers) + " from " + from)
                .isEqualTo(403);
        assertThat(r.bodyText()).as("the reason").isNotBlank();
    }

    /** One request on a fresh connection to the address (the node sees this address as the peer's). */
    private static RawHttp.Reply send(InetAddress to, int port, String requestLine, Object body, String... headers)
            throws IOException {
        byte[] bytes = body == null
                ? new byte[0]
                : body instanceof byte[] b ? b : body.toString().getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder(requestLine).append(" HTTP/1.1\r\nHost: dht\r\n");
        for (String h : headers) {
            head.append(h).append("\r\n");
        }
        head.append("Content-Length: ").append(bytes.length).append("\r\nConnection: close\r\n\r\n");
        try (RawHttp http = new RawHttp(to, port)) {
            http.send(concat(head.toString().getBytes(StandardCharsets.ISO_8859_1), bytes));
            return http.read();
        }
    }

    /** One frame of a PUT /v0/internal/records body: key length, key, record length, encoded record. */
    private static byte[] batch(String key, long timestamp, String value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] r =
                Record.value(timestamp, value.getBytes(StandardCharsets.UTF_8)).encoded();
        return ByteBuffer.allocate(8 + k.length + r.length)
                .putInt(k.length)
                .put(k)
                .putInt(r.length)
                .put(r)
                .array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }

    /** Stands where a forged topology header points: on a member URL's port and on its member port. */
    static final class Listener implements AutoCloseable {
        private final int port = TestNode.freePort();
        private final List<ServerSocket> sockets;
        private final AtomicInteger connections = new AtomicInteger();

        Listener() throws IOException {
            sockets = List.of(
                    new ServerSocket(port), new ServerSocket(port + SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET));
            for (ServerSocket s : sockets) {
                Thread t = new Thread(
                        () -> {
                            try {
                                while (true) {
                                    s.accept().close();
                                    connections.incrementAndGet();
                                }
                            } catch (IOException closed) {
                                // test over
                            }
                        },
                        "evil-listener");
                t.setDaemon(true);
                t.start();
            }
        }

        String url() {
            return "http://127.0.0.1:" + port;
        }

        int connections() {
            return connections.get();
        }

        @Override
        public void close() throws IOException {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }
}
