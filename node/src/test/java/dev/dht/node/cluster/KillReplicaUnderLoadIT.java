package dev.dht.node.cluster;

import static dev.dht.node.cluster.Reply.CREATED;
import static dev.dht.node.cluster.Reply.ok;
import static dev.dht.node.cluster.TestData.randomId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of a replica in the middle of a write load at 2/3 (no course scenario; the course only stops nodes
 * cleanly between requests). Writers spread over the three nodes write unique keys; one node is killed while
 * they run and they go on. Every write that was acknowledged (201) must be readable at 2/3 with its exact value,
 * with the killed node still down and again after it restarted.
 */
class KillReplicaUnderLoadIT {
    private static final int VICTIM = 2;
    private static final int WRITERS = 6;
    private static final int WRITES_PER_WRITER = 600;
    /** The kill comes once this many writes were acknowledged: about a third of the load. */
    private static final int ACKNOWLEDGED_BEFORE_KILL = 1200;

    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension(3, () -> dir);

    @Test
    void everyAcknowledgedWriteSurvivesAReplicaKilledMidLoad(ProcessCluster c) throws Exception {
        List<EntityClient> nodes = List.of(c.node(0), c.node(1), c.node(2));
        Map<String, byte[]> acknowledged = new ConcurrentHashMap<>();
        Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
        AtomicBoolean killed = new AtomicBoolean();
        AtomicInteger acknowledgedAfterKill = new AtomicInteger();
        String run = randomId();

        ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < WRITES_PER_WRITER; i++) {
                        String id = run + "-" + writer + "-" + i;
                        byte[] value = ("value of " + id).getBytes(StandardCharsets.UTF_8);
                        boolean afterKill = killed.get();
                        String outcome;
                        try {
                            Reply reply = nodes.get((writer + i) % nodes.size()).put(id, value, 2, 3);
                            outcome = String.valueOf(reply.status());
                            if (reply.equals(CREATED)) {
                                acknowledged.put(id, value);
                                if (afterKill) {
                                    acknowledgedAfterKill.incrementAndGet();
                                }
                            }
                        } catch (RuntimeException e) { // the killed node: refused, or cut mid-request
                            outcome = e.getCause() == null
                                    ? e.getClass().getSimpleName()
                                    : e.getCause().getClass().getSimpleName();
                        }
                        outcomes.computeIfAbsent(outcome, o -> new LongAdder()).increment();
                    }
                }));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= ACKNOWLEDGED_BEFORE_KILL);
            c.kill(VICTIM);
            killed.set(true);
            for (Future<?> writer : writers) {
                writer.get(120, TimeUnit.SECONDS);
            }

            assertThat(acknowledgedAfterKill.get())
                    .as("writes acknowledged with the replica dead; outcomes: %s", outcomes)
                    .isGreaterThanOrEqualTo(1000);

            assertThat(readBack(pool, c, acknowledged, List.of(0, 1)))
                    .as("lost or changed with node %d down", VICTIM)
                    .isEmpty();
            c.start(VICTIM);
            assertThat(readBack(pool, c, acknowledged, List.of(0, 1, 2)))
                    .as("lost or changed after the restart")
                    .isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }

    /** GET 2/3 of every acknowledged key, spread over these nodes; returns what did not read back exactly. */
    private static List<String> readBack(
            ExecutorService pool, ProcessCluster c, Map<String, byte[]> expected, List<Integer> via) throws Exception {
        List<String> ids = new ArrayList<>(expected.keySet());
        List<Callable<List<String>>> readers = new ArrayList<>();
        for (int r = 0; r < WRITERS; r++) {
            int reader = r;
            readers.add(() -> {
                List<String> wrong = new ArrayList<>();
                for (int k = reader; k < ids.size(); k += WRITERS) {
                    int node = via.get(k % via.size());
                    String id = ids.get(k);
                    Reply reply = c.node(node).get(id, 2, 3);
                    if (!reply.equals(ok(expected.get(id)))) {
                        wrong.add(id + " via node " + node + ": " + reply);
                    }
                }
                return wrong;
            });
        }
        List<String> wrong = new ArrayList<>();
        for (Future<List<String>> f : pool.invokeAll(readers)) {
            wrong.addAll(f.get());
        }
        return wrong;
    }
}
