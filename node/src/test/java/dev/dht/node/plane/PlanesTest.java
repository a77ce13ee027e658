package dev.dht.node.plane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.support.Addresses;
import dev.dht.node.support.TestNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each port serves its plane only (docs/security.md, "Planes"): the client port refuses the member protocol (403
 * with a reason, nothing changes), the member port refuses everything else, and privileged admin operations on the
 * client port need a loopback peer. The non-loopback cases connect to this machine's own non-loopback address.
 */
class PlanesTest {
    @TempDir
    static Path dir;

    static TestNode node;

    @BeforeAll
    static void start() {
        node = TestNode.start(dir);
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    private static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void theClientPortRefusesMemberHeadersAndChangesNothing() {
        assertThat(node.put("/v0/entity?id=p1", "client".getBytes()).statusCode())
                .isEqualTo(201);
        long far = Long.MAX_VALUE - 1;
        for (String header : new String[] {
            "X-Dht-Internal", "X-Dht-Timestamp", "X-Dht-Clock", "X-Dht-Topology", "x-dht-internal", "X-DHT-CALL"
        }) {
            HttpResponse<byte[]> r = node.send(HttpRequest.newBuilder(node.uri("/v0/entity?id=p1"))
                    .header(
                            header,
                            header.toLowerCase().endsWith("topology") ? "99.s.1.- http://evil:1" : String.valueOf(far))
                    .PUT(HttpRequest.BodyPublishers.ofString("forged")));
            assertThat(r.statusCode()).as(header).isEqualTo(403);
            assertThat(text(r)).as(header).contains("member port");
        }
        HttpResponse<byte[]> get = node.get("/v0/entity?id=p1");
        assertThat(text(get)).isEqualTo("client");
        // the clock did not move: a fresh client write still wins over the stored one
        assertThat(node.put("/v0/entity?id=p1", "again".getBytes()).statusCode())
                .isEqualTo(201);
        assertThat(text(node.get("/v0/entity?id=p1"))).isEqualTo("again");
        assertThat(node.node().server().guard().refused(PlaneGuard.Reason.MEMBER_HEADER))
                .isGreaterThanOrEqualTo(6);
        assertThat(node.metrics()).contains("dht_plane_refused_total{reason=\"member_header\"}");
    }

    @Test
    void theClientPortRefusesMemberPaths() {
        HttpResponse<byte[]> records = node.put("/v0/internal/records", new byte[] {1, 2, 3});
        assertThat(records.statusCode()).isEqualTo(403);
        assertThat(text(records)).contains("member path");
        assertThat(node.get("/v0/internal/topology").statusCode()).isEqualTo(403);
        // the read-only report stays on the client port
        assertThat(node.get("/v0/admin/topology").statusCode()).isEqualTo(200);
    }

    @Test
    void theMemberPortServesTheMemberProtocolOnly() {
        HttpResponse<byte[]> clientPut = node.send(HttpRequest.newBuilder(node.memberUri("/v0/entity?id=p2"))
                .PUT(HttpRequest.BodyPublishers.ofString("v")));
        assertThat(clientPut.statusCode()).isEqualTo(403);
        assertThat(text(clientPut)).contains("member protocol only");
        assertThat(node.send(HttpRequest.newBuilder(node.memberUri("/metrics")).GET())
                        .statusCode())
                .isEqualTo(403);
        assertThat(node.send(HttpRequest.newBuilder(node.memberUri("/v0/admin/profile?duration=1s"))
                                .GET())
                        .statusCode())
                .isEqualTo(403);
        assertThat(node.send(HttpRequest.newBuilder(node.memberUri("/v0/status"))
                                .GET())
                        .statusCode())
                .isEqualTo(200);
        HttpResponse<byte[]> internal = node.send(HttpRequest.newBuilder(node.memberUri("/v0/entity?id=p2"))
                .header("X-Dht-Internal", "1")
                .GET());
        assertThat(internal.statusCode()).isEqualTo(404);
        assertThat(internal.headers().firstValue("X-Dht-Clock")).isPresent();
    }

    @Test
    void withoutTlsTheMemberPortListensOnLoopbackOnly() {
        InetAddress external = Addresses.external();
        assertThatThrownBy(() -> {
                    try (Socket s = new Socket()) {
                        s.connect(
                                new InetSocketAddress(
                                        external, node.node().server().memberPort()),
                                2000);
                    }
                })
                .isInstanceOf(IOException.class);
        // while the client port answers there
        assertThat(rawStatus(external, node.port(), "GET /v0/status")).isEqualTo(200);
    }

    @Test
    void privilegedAdminRequestsNeedALoopbackPeer() {
        InetAddress external = Addresses.external();
        assertThat(rawStatus(external, node.port(), "GET /v0/admin/profile?event=cpu&duration=1s"))
                .isEqualTo(403);
        assertThat(rawStatus(external, node.port(), "POST /v0/admin/cleanup")).isEqualTo(403);
        assertThat(rawStatus(external, node.port(), "POST /v0/admin/flush")).isEqualTo(403);
        // read-only status stays open to every client
        assertThat(rawStatus(external, node.port(), "GET /v0/admin/movement")).isEqualTo(200);
        assertThat(rawStatus(external, node.port(), "GET /metrics")).isEqualTo(200);
        // from loopback the operation itself answers (a fixed member list has nothing to clean up: 409)
        assertThat(node.send(HttpRequest.newBuilder(node.uri("/v0/admin/cleanup"))
                                .POST(HttpRequest.BodyPublishers.noBody()))
                        .statusCode())
                .isEqualTo(409);
    }

    /** One request over a fresh connection to the address (the kernel sends from that same address). */
    private static int rawStatus(InetAddress address, int port, String requestLine) {
        try (Socket s = new Socket()) {
            s.setSoTimeout(10_000);
            s.connect(new InetSocketAddress(address, port), 5000);
            OutputStream out = s.getOutputStream();
            out.write((requestLine + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String head = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            return Integer.parseInt(head.substring(9, 12));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
