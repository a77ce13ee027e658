package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.EntityHandler;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.Store;
import dev.dht.node.support.RawHttp;
import dev.dht.node.support.TestNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the selector pass does for requests (docs/node.md, "Threading"): writes read together are applied as one
 * group at the end of the pass, pipelined requests keep their order (a read sees the writes sent before it on
 * its connection), and only what needs the disk goes to a worker.
 */
class SelectorPassTest {
    @TempDir
    Path dir;

    @Test
    void pipelinedWritesShareOneGroupAndEveryReadSeesTheWritesBeforeIt() throws Exception {
        try (TestNode node = TestNode.start(dir);
                RawHttp raw = new RawHttp(node.port())) {
            double groups = node.metric("dht_write_groups_total");
            double grouped = node.metric("dht_grouped_writes_total");
            StringBuilder writes = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                writes.append("PUT /v0/entity?id=batch")
                        .append(i)
                        .append(" HTTP/1.1\r\nHost: x\r\n")
                        .append("Content-Length: 1\r\n\r\n")
                        .append((char) ('a' + i));
            }
            raw.send(writes.toString()); // one write of ~1.5 KiB: one read on loopback
            for (int i = 0; i < 20; i++) {
                assertThat(raw.read().status()).isEqualTo(201);
            }
            assertThat(node.metric("dht_grouped_writes_total") - grouped).isEqualTo(20);
            assertThat(node.metric("dht_write_groups_total") - groups)
                    .as("20 pipelined writes in a handful of groups, not one each")
                    .isLessThanOrEqualTo(3);

            raw.send("PUT /v0/entity?id=order HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nv1"
                    + "GET /v0/entity?id=order HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "PUT /v0/entity?id=order HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nv2"
                    + "PUT /v0/entity?id=order HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nv3"
                    + "GET /v0/entity?id=order HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "DELETE /v0/entity?id=order HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /v0/entity?id=order HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(201);
            assertThat(raw.read().bodyText()).isEqualTo("v1");
            assertThat(raw.read().status()).isEqualTo(201);
            assertThat(raw.read().status()).isEqualTo(201);
            assertThat(raw.read().bodyText())
                    .as("the later of two writes in one group")
                    .isEqualTo("v3");
            assertThat(raw.read().status()).isEqualTo(202);
            assertThat(raw.read().status()).isEqualTo(404);
        }
    }

    @Test
    void readsAndWritesWhoseRecordIsOnlyOnDiskGoToAWorker() {
        AtomicReference<Store> store = new AtomicReference<>();
        BiFunction<Store, HybridLogicalClock, EntityHandler> capture = (s, clock) -> {
            store.set(s);
            return new LocalEntityHandler(s, clock);
        };
        // each key in its own SST file (reading one must not cache the other's block)
        try (TestNode node = TestNode.start(dir, c -> c, capture)) {
            assertThat(node.put("/v0/entity?id=cold-read", bytes("r1")).statusCode())
                    .isEqualTo(201);
            ((RocksStore) store.get()).flush();
            assertThat(node.put("/v0/entity?id=cold-write", bytes("w1")).statusCode())
                    .isEqualTo(201);
            ((RocksStore) store.get()).flush();
        }
        // a restart starts with an empty block cache (a flush puts the blocks it writes into it)
        try (TestNode node = TestNode.start(dir, c -> c, capture)) {
            double before = node.metric("dht_worker_requests_total");
            assertThat(before).isZero();

            assertThat(new String(node.get("/v0/entity?id=cold-read").body(), StandardCharsets.UTF_8))
                    .isEqualTo("r1");
            assertThat(node.put("/v0/entity?id=cold-write", bytes("w2")).statusCode())
                    .isEqualTo(201);
            assertThat(node.metric("dht_worker_requests_total") - before)
                    .as("the read needed the disk; the write's last-write-wins check too")
                    .isEqualTo(2);
            assertThat(new String(node.get("/v0/entity?id=cold-write").body(), StandardCharsets.UTF_8))
                    .isEqualTo("w2");
            assertThat(node.metric("dht_worker_requests_total") - before)
                    .as("w2 is in memory")
                    .isEqualTo(2);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
