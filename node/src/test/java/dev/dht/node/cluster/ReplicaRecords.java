package dev.dht.node.cluster;

import static org.awaitility.Awaitility.await;

import dev.dht.node.http.Headers;
import dev.dht.node.json.Json;
import dev.dht.node.storage.Record;
import dev.dht.node.support.MemberTlsMode;
import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.RawHttp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one replica holds, read from it directly on its member port: an internal GET ({@code X-Dht-Internal: 1})
 * acts on that node's store only, is never coordinated and starts no read repair, and answers the stored record
 * itself (timestamp, tombstones included), or 404 when the node never saw the key. Also the repair's admin calls
 * (on the client port, from loopback).
 */
final class ReplicaRecords {
    private ReplicaRecords() {}

    /**
     * The record node holds for id, or null if it holds none; fails on any other answer (503 while rebuilding). Over
     * the member port as a member asks: in TLS with the test CA's certificate when the suite runs with
     * {@code -Ddht.test.memberTls=true} (MemberTlsMode.connect, as ReplicaCheck reads).
     */
    static Record read(NodeProcess node, String id) {
        return read(node, List.of(id)).get(id);
    }

    /** {@link #read(NodeProcess, String)} of each id, over one kept-alive connection (one TLS handshake). */
    static Map<String, Record> read(NodeProcess node, Collection<String> ids) {
        Map<String, Record> out = new LinkedHashMap<>();
        try (RawHttp http =
                new RawHttp(MemberTlsMode.connect(node.memberUri("/").getPort()))) {
            for (String id : ids) {
                http.send("GET /v0/entity?id=" + id + " HTTP/1.1\r\nHost: localhost\r\n" + Headers.INTERNAL
                        + ": 1\r\n\r\n");
                RawHttp.Reply r = http.read();
                if (r.status() != 200 && r.status() != 404) {
                    throw new AssertionError(
                            "internal GET " + id + " on port " + node.port() + ": " + r.status() + " " + r.bodyText());
                }
                out.put(id, r.status() == 404 ? null : Record.decode(r.body()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** GET /v0/admin/repair of a node. */
    static Map<String, Object> status(NodeProcess node) {
        try {
            HttpResponse<byte[]> r = node.get("/v0/admin/repair");
            if (r.statusCode() != 200) {
                throw new AssertionError("GET /v0/admin/repair: " + r.statusCode());
            }
            return Json.parseObject(new String(r.body(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static String rebuildState(NodeProcess node) {
        return (String) ((Map<String, Object>) status(node).get("rebuild")).get("state");
    }

    static long total(NodeProcess node, String name) {
        @SuppressWarnings("unchecked")
        Map<String, Object> totals = (Map<String, Object>) status(node).get("totals");
        return ((Number) totals.get(name)).longValue();
    }

    /** The sum over the running nodes of a repair total (the coordinator's figures). */
    static long total(ProcessCluster c, String name) {
        long sum = 0;
        for (int i = 0; i < c.size(); i++) {
            if (c.isRunning(i)) {
                sum += total(c.process(i), name);
            }
        }
        return sum;
    }

    /**
     * Asks every running node for a round of the replica sets it coordinates (POST /v0/admin/repair) and waits
     * until all are done. Returns the number of rounds completed.
     */
    static long repairRound(ProcessCluster c) {
        long before = total(c, "rounds");
        long scheduled = requestRound(c);
        long expected = before + scheduled;
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> total(c, "rounds") >= expected);
        return scheduled;
    }

    /** POST /v0/admin/repair on every running node; returns the number of rounds they scheduled. */
    static long requestRound(ProcessCluster c) {
        long scheduled = 0;
        for (int i = 0; i < c.size(); i++) {
            if (c.isRunning(i)) {
                try {
                    HttpResponse<byte[]> r = c.process(i)
                            .send(
                                    HttpRequest.newBuilder(c.process(i).uri("/v0/admin/repair"))
                                            .POST(HttpRequest.BodyPublishers.noBody()),
                                    Duration.ofSeconds(10));
                    if (r.statusCode() != 202) {
                        throw new AssertionError("POST /v0/admin/repair: " + r.statusCode() + " "
                                + new String(r.body(), StandardCharsets.UTF_8));
                    }
                    scheduled += ((Number) Json.parseObject(new String(r.body(), StandardCharsets.UTF_8))
                                    .get("scheduled"))
                            .longValue();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
        return scheduled;
    }
}
