package dev.dht.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.support.TestNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Concurrent writers and readers over HTTP: no lost update, no torn or invented value, reads never go back. */
class ConcurrencyTest {

    @Test
    void writersAndReadersAgree(@TempDir Path dir) throws Exception {
        int writers = 6;
        int keysPerWriter = 20;
        int versions = 40;
        int readers = 4;
        try (TestNode node = TestNode.start(dir)) {
            ExecutorService pool = Executors.newFixedThreadPool(writers + readers + 2);
            CountDownLatch go = new CountDownLatch(1);
            AtomicBoolean writing = new AtomicBoolean(true);
            Set<String> written = ConcurrentHashMap.newKeySet();
            List<Future<?>> writes = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                writes.add(pool.submit(() -> {
                    go.await();
                    for (int v = 1; v <= versions; v++) {
                        for (int k = 0; k < keysPerWriter; k++) {
                            String value = "w" + writer + "-k" + k + "-v" + v;
                            written.add(value); // recorded before the write may become visible
                            assertThat(node.put("/v0/entity?id=w" + writer + "-k" + k, bytes(value))
                                            .statusCode())
                                    .isEqualTo(201);
                        }
                        // every writer also overwrites one shared key
                        String shared = "shared-w" + writer + "-v" + v;
                        written.add(shared);
                        assertThat(node.put("/v0/entity?id=shared", bytes(shared))
                                        .statusCode())
                                .isEqualTo(201);
                    }
                    return null;
                }));
            }
            List<Future<Integer>> reads = new ArrayList<>();
            for (int r = 0; r < readers; r++) {
                reads.add(pool.submit(() -> {
                    go.await();
                    Map<String, Integer> lastSeen = new HashMap<>();
                    int checked = 0;
                    while (writing.get()) {
                        int writer = ThreadLocalRandom.current().nextInt(writers);
                        int k = ThreadLocalRandom.current().nextInt(keysPerWriter);
                        String id = "w" + writer + "-k" + k;
                        HttpResponse<byte[]> got = node.get("/v0/entity?id=" + id);
                        if (got.statusCode() == 404) {
                            assertThat(lastSeen)
                                    .as("a key never disappears once seen")
                                    .doesNotContainKey(id);
                            continue;
                        }
                        assertThat(got.statusCode()).isEqualTo(200);
                        String value = new String(got.body(), StandardCharsets.UTF_8);
                        assertThat(written).as("only written values are read").contains(value);
                        assertThat(value).startsWith(id + "-v");
                        int version = Integer.parseInt(value.substring(value.lastIndexOf('v') + 1));
                        assertThat(version)
                                .as("reads of %s never go back", id)
                                .isGreaterThanOrEqualTo(lastSeen.getOrDefault(id, 0));
                        lastSeen.put(id, version);
                        checked++;
                    }
                    return checked;
                }));
            }
            go.countDown();
            for (Future<?> f : writes) {
                f.get(120, TimeUnit.SECONDS);
            }
            writing.set(false);
            int checked = 0;
            for (Future<Integer> f : reads) {
                checked += f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(checked).as("the readers really read").isPositive();

            for (int w = 0; w < writers; w++) {
                for (int k = 0; k < keysPerWriter; k++) {
                    HttpResponse<byte[]> got = node.get("/v0/entity?id=w" + w + "-k" + k);
                    assertThat(new String(got.body(), StandardCharsets.UTF_8))
                            .as("the last acknowledged write wins")
                            .isEqualTo("w" + w + "-k" + k + "-v" + versions);
                }
            }
            String shared = new String(node.get("/v0/entity?id=shared").body(), StandardCharsets.UTF_8);
            assertThat(shared).matches("shared-w\\d-v" + versions);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
