package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import dev.dht.node.support.TestNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression test of the spinning worker (issue 21): a record stamped at the end of the clock's range (stored
 * before the clock had a bound, or by any path that once skipped it), then ordinary PUTs and a DELETE of the same
 * key. Each is answered at once with a reason (the write cannot overtake that stamp) instead of looping forever
 * on a worker; the clock does not jump to the stamp; other keys are served as before.
 */
class FarFutureRecordTest {
    @Test
    void writesAgainstARecordStampedAtTheEndOfTheRangeAreAnsweredNotSpun(@TempDir Path dir) {
        AtomicReference<Store> store = new AtomicReference<>();
        try (TestNode node = TestNode.start(dir, c -> c, (s, clock) -> {
            store.set(s);
            return new LocalEntityHandler(s, clock);
        })) {
            byte[] key = "spin".getBytes(StandardCharsets.UTF_8);
            assertThat(store.get().applyIfNewer(key, Record.value(Long.MAX_VALUE - 1, "stuck".getBytes())))
                    .isTrue();

            for (int i = 0; i < 2; i++) {
                var put = node.put("/v0/entity?id=spin", ("v" + i).getBytes());
                assertThat(put.statusCode()).as("PUT %d", i).isEqualTo(409);
                assertThat(new String(put.body(), StandardCharsets.UTF_8)).contains("--max-clock-ahead");
            }
            assertThat(node.delete("/v0/entity?id=spin").statusCode()).isEqualTo(409);
            assertThat(new String(node.get("/v0/entity?id=spin").body(), StandardCharsets.UTF_8))
                    .isEqualTo("stuck");

            assertThat(node.put("/v0/entity?id=other", "fine".getBytes()).statusCode())
                    .isEqualTo(201);
            assertThat(new String(node.get("/v0/entity?id=other").body(), StandardCharsets.UTF_8))
                    .isEqualTo("fine");
            // A worker counts as busy until just after its answer is sent: give the last one a moment to return.
            // A spinning worker never would.
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(node.metric("dht_workers_busy"))
                            .as("no worker left spinning")
                            .isZero());
            assertThat(node.metric("dht_clock_refused_total")).isGreaterThanOrEqualTo(3);
            Record other = store.get().get("other".getBytes(StandardCharsets.UTF_8));
            assertThat(other.timestamp() >>> 16)
                    .as("the clock stayed at the wall clock")
                    .isLessThan(System.currentTimeMillis() + 60_000);
        }
    }
}
