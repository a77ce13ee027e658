package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.support.TestNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsTest {

    @Test
    void exposesRequestsQueueRocksDbAndJvmFigures(@TempDir Path dir) {
        try (TestNode node = TestNode.start(dir)) {
            for (int i = 0; i < 5; i++) {
                node.put("/v0/entity?id=m" + i, new byte[100]);
            }
            node.get("/v0/entity?id=m1");
            node.get("/v0/entity?id=absent");
            node.get("/abracadabra");

            HttpResponse<byte[]> r = node.get("/metrics");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
            String text = node.metrics();
            assertThat(text)
                    .contains("dht_request_duration_seconds_count{method=\"PUT\",status=\"201\"} 5")
                    .contains("dht_request_duration_seconds_count{method=\"GET\",status=\"200\"} 1")
                    .contains("dht_request_duration_seconds_count{method=\"GET\",status=\"404\"} 1")
                    .contains("dht_request_duration_seconds_count{method=\"GET\",status=\"400\"} 1")
                    .contains("dht_request_duration_seconds_bucket{method=\"PUT\",status=\"201\",le=\"0.001\"}")
                    .contains("dht_request_queue_depth 0")
                    .contains("dht_requests_rejected_total 0")
                    .contains("dht_rocksdb_pending_compaction_bytes")
                    .contains("dht_rocksdb_block_cache_hit_ratio")
                    .contains("dht_rocksdb_estimated_keys")
                    .contains("jvm_memory_used_bytes")
                    .contains("jvm_threads_current");
            assertThat(node.metric("dht_rocksdb_memtable_bytes")).isPositive();
            assertThat(node.metric("dht_cluster_members")).isEqualTo(1.0);
            assertThat(node.metric("dht_workers"))
                    .isEqualTo(node.node().config().workers());
        }
    }
}
