package dev.dht.node.movement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.json.Json;
import dev.dht.node.support.ReplicaCheck;
import dev.dht.node.support.TestNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Moves on real nodes in this JVM (fast feedback for the protocol; the multi-process suite in
 * dev.dht.node.cluster is the end-to-end check): 3 -> 5 -> 3 through a shared cluster file with replication factor
 * 3, a writer and a reader running throughout; every acknowledged key is on each of its replicas (read from each
 * alone) and reads back exactly, during and after.
 */
class MoveInProcessTest {
    @TempDir
    Path dir;

    private final int[] ports = new int[5];
    private final TestNode[] nodes = new TestNode[5];
    private Path file;

    @AfterEach
    void stopAll() {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null) {
                nodes[i].close();
                nodes[i] = null;
            }
        }
    }

    private String url(int i) {
        return "http://localhost:" + ports[i];
    }

    private List<String> urls(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(url(i));
        }
        return out;
    }

    private void writeFile(List<String> members) throws Exception {
        Path tmp = file.resolveSibling("members.tmp");
        Files.writeString(tmp, String.join("\n", members) + "\n");
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private void start(int i) {
        start(i, dev.dht.node.config.ClusterSettings.DEFAULT_MOVE_RATE);
    }

    private void start(int i, long moveRate) {
        NodeConfig c = NodeConfig.defaults(ports[i], dir.resolve("node" + i))
                .withClusterFile(file, ClusterMembers.of(urls(3)), url(i))
                .withReplicationFactor(3);
        c = c.withCluster(c.cluster().withMovement(moveRate, 16 << 10));
        nodes[i] = TestNode.start(c);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> topologyOf(int i) {
        return (Map<String, Object>) movement(i).get("topology");
    }

    /**
     * A new list while a move is joint waits: the move ends (3 -> 5), then the proposer of the new stable set starts
     * the next one from it (5 -> 4), never from the old set. Moves are slowed down (32 KiB/s) so that the change
     * lands in the middle of the first.
     */
    @Test
    void aChangeDuringAJointMoveWaitsForItToEnd() throws Exception {
        for (int i = 0; i < 5; i++) {
            ports[i] = TestNode.freePort();
        }
        file = dir.resolve("members");
        writeFile(urls(3));
        for (int i = 0; i < 3; i++) {
            start(i, 32 << 10);
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> idleWith(0, urls(3)) && idleWith(1, urls(3)) && idleWith(2, urls(3)));
        Map<String, String> acked = new java.util.HashMap<>();
        for (int k = 0; k < 3000; k++) {
            String id = "q" + k;
            if (nodes[k % 3]
                            .put("/v0/entity?id=" + id + "&replicas=2/3", id.getBytes(StandardCharsets.UTF_8))
                            .statusCode()
                    == 201) {
                acked.put(id, id);
            }
        }
        writeFile(urls(5));
        start(3, 32 << 10);
        start(4, 32 << 10);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "joint".equals(topologyOf(0).get("stage")));
        writeFile(urls(4));
        // the first move is still joint (and stays so for seconds): nobody has started another
        for (int i = 0; i < 5; i++) {
            assertThat(((Number) topologyOf(i).get("epoch")).longValue())
                    .as("node %d", i)
                    .isEqualTo(1L);
        }
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    Map<String, Object> t = topologyOf(0);
                    return ((Number) t.get("epoch")).longValue() == 2;
                });
        Map<String, Object> second = topologyOf(0);
        assertThat(second.get("previous"))
                .as("the second move starts from the first one's target")
                .isEqualTo(ClusterMembers.of(urls(5)).urls());
        awaitIdle(5, urls(4));
        assertOnEveryReplica(acked, urls(4));
        for (Map.Entry<String, String> e : acked.entrySet()) {
            HttpResponse<byte[]> r =
                    nodes[e.getKey().hashCode() & 3].get("/v0/entity?id=" + e.getKey() + "&replicas=2/3");
            assertThat(r.statusCode()).as(e.getKey()).isEqualTo(200);
            assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(e.getValue());
        }
    }

    /**
     * Every acknowledged key is on each of its 3 replicas among these members, asked of each replica alone: before
     * any quorum read, which would repair what it touches.
     */
    private static void assertOnEveryReplica(Map<String, String> acked, List<String> members) throws Exception {
        Map<String, byte[]> values = new java.util.HashMap<>();
        acked.forEach((k, v) -> values.put(k, v.getBytes(StandardCharsets.UTF_8)));
        assertThat(ReplicaCheck.onUrls(values, members, 3).missing(Duration.ofSeconds(30)))
                .as("each of %d acknowledged keys on each of its replicas, read locally", acked.size())
                .isEmpty();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> movement(int i) {
        HttpResponse<byte[]> r = nodes[i].get("/v0/admin/movement");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
        return Json.parseObject(new String(r.body(), StandardCharsets.UTF_8));
    }

    @SuppressWarnings("unchecked")
    private boolean idleWith(int i, List<String> members) {
        Map<String, Object> m = movement(i);
        Map<String, Object> t = (Map<String, Object>) m.get("topology");
        return "idle".equals(m.get("state"))
                && "stable".equals(t.get("phase"))
                && ClusterMembers.of(members).urls().equals(t.get("members"));
    }

    /**
     * Waits until each of the first n nodes is idle with these members. A move takes seconds here; if one stalls,
     * the failure shows every node's movement status (stage, what it sent, cleanup), not only a timeout.
     */
    private void awaitIdle(int n, List<String> members) {
        try {
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        for (int i = 0; i < n; i++) {
                            if (!idleWith(i, members)) {
                                return false;
                            }
                        }
                        return true;
                    });
        } catch (ConditionTimeoutException e) {
            StringBuilder status = new StringBuilder();
            for (int i = 0; i < n; i++) {
                status.append(i == 0 ? " " : "; ")
                        .append("node ")
                        .append(i)
                        .append(' ')
                        .append(url(i))
                        .append(": ");
                try {
                    status.append(movement(i));
                } catch (RuntimeException | AssertionError unanswered) {
                    status.append("no status: ").append(unanswered);
                }
            }
            throw new AssertionError(
                    "not every node idle with " + members + " within 120 s (a stalled move):" + status, e);
        }
    }

    /** A steady load: a thread's n-th operation starts no earlier than n ms after its first (1,000/s at most). */
    private static void pace(long start, long n) {
        long wait = start + n * 1_000_000L - System.nanoTime();
        if (wait > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(wait);
        }
    }

    @Test
    void growThenShrinkUnderLoadLosesNothing() throws Exception {
        for (int i = 0; i < 5; i++) {
            ports[i] = TestNode.freePort();
        }
        file = dir.resolve("members");
        writeFile(urls(3));
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> idleWith(0, urls(3)) && idleWith(1, urls(3)) && idleWith(2, urls(3)));

        Map<String, String> acked = new ConcurrentHashMap<>();
        List<String> wrong = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger unavailable = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        int[] running = {3};
        Thread writer = new Thread(
                () -> {
                    int n = 0;
                    long start = System.nanoTime();
                    while (!stop.get()) {
                        pace(start, n);
                        String id = "k" + (n++);
                        String value =
                                "v-" + id + "-" + ThreadLocalRandom.current().nextInt();
                        int via = ThreadLocalRandom.current().nextInt(Math.min(3, running[0]));
                        try {
                            HttpResponse<byte[]> r = nodes[via].put(
                                    "/v0/entity?id=" + id + "&replicas=2/3", value.getBytes(StandardCharsets.UTF_8));
                            if (r.statusCode() == 201) {
                                acked.put(id, value);
                            }
                        } catch (RuntimeException e) {
                            // a node stopping: not acknowledged
                        }
                    }
                },
                "writer");
        Thread reader = new Thread(
                () -> {
                    int n = 0;
                    long start = System.nanoTime();
                    while (!stop.get()) {
                        pace(start, n++);
                        List<String> ids = new ArrayList<>(acked.keySet());
                        if (ids.isEmpty()) {
                            Thread.onSpinWait();
                            continue;
                        }
                        String id = ids.get(ThreadLocalRandom.current().nextInt(ids.size()));
                        int via = ThreadLocalRandom.current().nextInt(Math.min(3, running[0]));
                        HttpResponse<byte[]> r;
                        try {
                            r = nodes[via].get("/v0/entity?id=" + id + "&replicas=2/3");
                        } catch (RuntimeException e) { // no answer: unavailable, never a silent end of the reader
                            unavailable.incrementAndGet();
                            continue;
                        } finally {
                            reads.incrementAndGet();
                        }
                        if (r.statusCode() == 200) {
                            if (!acked.get(id).equals(new String(r.body(), StandardCharsets.UTF_8))) {
                                wrong.add(id + " via " + via + ": other value");
                            }
                        } else if (r.statusCode() == 404) {
                            wrong.add(id + " via " + via + ": 404");
                        } else {
                            unavailable.incrementAndGet();
                        }
                    }
                },
                "reader");
        AtomicReference<Throwable> died = new AtomicReference<>();
        writer.setUncaughtExceptionHandler((t, e) -> died.set(e));
        reader.setUncaughtExceptionHandler((t, e) -> died.set(e));
        writer.start();
        reader.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> acked.size() >= 2000);

            writeFile(urls(5));
            start(3);
            start(4);
            awaitIdle(5, urls(5));
            assertThat(((Number) topologyOf(0).get("epoch")).longValue())
                    .as("one move to the file's list, not a cluster moved back and forth")
                    .isEqualTo(1L);
            running[0] = 5;
            assertOnEveryReplica(Map.copyOf(acked), urls(5));
            int afterGrow = acked.size();
            await().atMost(Duration.ofSeconds(30)).until(() -> acked.size() >= afterGrow + 1000);

            writeFile(urls(3));
            awaitIdle(5, urls(3));
            assertThat(((Number) topologyOf(0).get("epoch")).longValue()).isEqualTo(2L);
            running[0] = 3;
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> movement(3).get("cleanup") instanceof Map<?, ?> c
                            && Boolean.FALSE.equals(c.get("pending")));
        } finally {
            stop.set(true);
            writer.join();
            reader.join();
        }
        nodes[3].close();
        nodes[3] = null;
        nodes[4].close();
        nodes[4] = null;

        System.out.printf(
                "MoveInProcessTest: %d acknowledged, %d reads, %d unavailable, %d wrong%n",
                acked.size(), reads.get(), unavailable.get(), wrong.size());
        assertThat(died.get()).as("the writer and the reader ran to the end").isNull();
        assertThat(wrong)
                .as("wrong reads during the moves (%d reads, %d unavailable)", reads.get(), unavailable.get())
                .isEmpty();
        // paced at 1,000/s at most, the reader ran through both moves (tens of seconds): far more than this
        assertThat(reads.get() - unavailable.get())
                .as("reads answered (%d unavailable)", unavailable.get())
                .isGreaterThan(1000);
        assertOnEveryReplica(acked, urls(3));
        List<String> lost = new ArrayList<>();
        for (Map.Entry<String, String> e : acked.entrySet()) {
            HttpResponse<byte[]> r =
                    nodes[e.getKey().hashCode() & 1].get("/v0/entity?id=" + e.getKey() + "&replicas=2/3");
            if (r.statusCode() != 200 || !e.getValue().equals(new String(r.body(), StandardCharsets.UTF_8))) {
                lost.add(e.getKey() + ": " + r.statusCode());
            }
        }
        assertThat(lost).as("of %d acknowledged keys", acked.size()).isEmpty();
    }
}
