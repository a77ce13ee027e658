package dev.dht.node.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.config.ClusterSettings;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.ring.Ring;
import dev.dht.node.storage.Record;
import dev.dht.node.support.TestNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The coordinator on real in-process nodes over loopback: quorum counting, copy counts, LWW, failures. */
class CoordinatorTest {
    @TempDir
    Path dir;

    private static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static String entity(String id, String replicas) {
        return "/v0/entity?id=" + id + (replicas == null ? "" : "&replicas=" + replicas);
    }

    @Test
    void anyNodeCoordinatesWithTheDefaultQuorum() {
        try (LocalCluster c = LocalCluster.start(dir, 3)) {
            for (int n = 0; n < 3; n++) {
                String id = "key" + n;
                assertThat(c.node(n).put(entity(id, null), ("v" + n).getBytes()).statusCode())
                        .isEqualTo(201);
                for (int m = 0; m < 3; m++) {
                    HttpResponse<byte[]> r = c.node(m).get(entity(id, null));
                    assertThat(r.statusCode()).isEqualTo(200);
                    assertThat(text(r)).isEqualTo("v" + n);
                }
                assertThat(c.node((n + 1) % 3).delete(entity(id, null)).statusCode())
                        .isEqualTo(202);
                for (int m = 0; m < 3; m++) {
                    assertThat(c.node(m).get(entity(id, "3/3")).statusCode()).isEqualTo(404);
                }
            }
            // an empty value is a value, not an absent key
            assertThat(c.node(0).put(entity("empty", "3/3"), new byte[0]).statusCode())
                    .isEqualTo(201);
            HttpResponse<byte[]> empty = c.node(2).get(entity("empty", "1/3"));
            assertThat(empty.statusCode()).isEqualTo(200);
            assertThat(empty.body()).isEmpty();
            assertThat(c.node(1).get(entity("bad", "0/3")).statusCode()).isEqualTo(400);
            assertThat(c.node(1).get(entity("bad", "4/3")).statusCode()).isEqualTo(400);
            assertThat(c.node(1).get(entity("bad", "1/4")).statusCode()).isEqualTo(400);
        }
    }

    @Test
    void aWriteStoresExactlyFromCopiesOnTheRingReplicas() {
        try (LocalCluster c = LocalCluster.start(dir, 3)) {
            Ring ring = new Ring(c.members().urls());
            for (int from = 1; from <= 3; from++) {
                for (int via = 0; via < 3; via++) {
                    String id = "copies-" + from + "-" + via;
                    assertThat(c.node(via)
                                    .put(entity(id, "1/" + from), "x".getBytes())
                                    .statusCode())
                            .isEqualTo(201);
                    List<String> replicas = ring.replicasFor(id.getBytes(StandardCharsets.UTF_8), from);
                    // ack=1 answers after the first copy; the others arrive right after
                    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                        for (int n = 0; n < 3; n++) {
                            assertThat(c.local(n, id).statusCode())
                                    .as("node %d for %s", n, id)
                                    .isEqualTo(replicas.contains(c.url(n)) ? 200 : 404);
                        }
                    });
                }
            }
        }
    }

    @Test
    void aRefusedReplicaFailsTheQuorumAtOnceAndTheRestStillServe() throws IOException {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort(); // closed again: connections to it are refused
        }
        String dead = "http://localhost:" + deadPort;
        Duration timeout = Duration.ofSeconds(30);
        try (LocalCluster c =
                LocalCluster.start(dir, 1, List.of(dead), (i, config) -> config.withRequestTimeout(timeout))) {
            long start = System.nanoTime();
            assertThat(c.node(0).put(entity("k", "2/2"), "v".getBytes()).statusCode())
                    .isEqualTo(504);
            assertThat(c.node(0).get(entity("k", "2/2")).statusCode()).isEqualTo(504);
            assertThat(c.node(0).delete(entity("k", "2/2")).statusCode()).isEqualTo(504);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("refused connections fail at once, not at the 30 s request timeout (three requests)")
                    .isLessThan(Duration.ofSeconds(15));
            assertThat(c.node(0).put(entity("k", "1/2"), "v".getBytes()).statusCode())
                    .isEqualTo(201);
            assertThat(text(c.node(0).get(entity("k", "1/2")))).isEqualTo("v");
            assertThat(c.node(0).metrics()).contains("dht_replica_calls_total{outcome=\"error\"}");
        }
    }

    /**
     * A peer that accepts connections and reads every request sent to it, and never answers: it listens where a
     * member's member port is (its URL's port + the offset).
     */
    private static final class SilentPeer implements AutoCloseable {
        private final int port = TestNode.freePort();
        private final ServerSocket server = new ServerSocket(
                port + SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET, 50, InetAddress.getLoopbackAddress());
        private final List<Socket> held = new CopyOnWriteArrayList<>();
        private final StringBuffer received = new StringBuffer();

        SilentPeer() throws IOException {
            daemon(() -> {
                try {
                    while (true) {
                        Socket s = server.accept();
                        held.add(s);
                        daemon(() -> readAll(s));
                    }
                } catch (IOException closed) {
                    // test over
                }
            });
        }

        private void readAll(Socket s) {
            byte[] buf = new byte[8192];
            try {
                for (int r; (r = s.getInputStream().read(buf)) > 0; ) {
                    received.append(new String(buf, 0, r, StandardCharsets.ISO_8859_1));
                }
            } catch (IOException closed) {
                // test over
            }
        }

        private static void daemon(Runnable r) {
            Thread t = new Thread(r);
            t.setDaemon(true);
            t.start();
        }

        String url() {
            return "http://localhost:" + port;
        }

        /** How many times the requests received so far contain the text. */
        int count(String what) {
            String text = received.toString();
            int n = 0;
            for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
                n++;
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            for (Socket s : held) {
                s.close();
            }
            server.close();
        }
    }

    @Test
    void aPeerThatAcceptsButNeverAnswersTimesOutAt504() throws Exception {
        try (SilentPeer silent = new SilentPeer()) {
            // 2 s: long enough that "did not wait for it" (the ack=1 write) holds on a busy machine.
            Duration timeout = Duration.ofSeconds(2);
            try (LocalCluster c = LocalCluster.start(
                    dir, 1, List.of(silent.url()), (i, config) -> config.withRequestTimeout(timeout))) {
                long start = System.nanoTime();
                assertThat(c.node(0).put(entity("k", "2/2"), "v".getBytes()).statusCode())
                        .isEqualTo(504);
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(took).as("waits for the request timeout").isGreaterThanOrEqualTo(timeout);
                assertThat(took).as("and answers at it, not later").isLessThan(timeout.plusSeconds(8));
                assertThat(c.node(0).get(entity("k", "2/2")).statusCode()).isEqualTo(504);
                // ack=1 is satisfied by the local copy: no wait for the silent peer
                long quick = System.nanoTime();
                assertThat(c.node(0).put(entity("k2", "1/2"), "v".getBytes()).statusCode())
                        .isEqualTo(201);
                assertThat(Duration.ofNanos(System.nanoTime() - quick)).isLessThan(timeout);
                await().atMost(Duration.ofSeconds(5))
                        .untilAsserted(() -> assertThat(c.node(0).metrics())
                                .containsPattern("dht_replica_calls_total\\{outcome=\"timeout\"} [1-9]"));
            }
        }
    }

    /** dht_replica_calls_total of every outcome on node i. */
    private static long replicaCalls(LocalCluster c, int i) {
        return metricSum(c, i, "dht_replica_calls_total\\{outcome=\"[a-z]+\"}");
    }

    /** Calls a read made beyond the replicas it chose: backups (a replica slow to answer) and probes. */
    private static long extraReadCalls(LocalCluster c, int i) {
        return metricSum(c, i, "dht_read_backups_sent_total") + metricSum(c, i, "dht_replica_probes_total\\{[^}]*}");
    }

    /** The sum of node i's samples whose name and labels match the pattern. */
    private static long metricSum(LocalCluster c, int i, String sample) {
        long sum = 0;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^" + sample + " ([0-9.eE+]+)$")
                .matcher(c.node(i).metrics());
        while (m.find()) {
            sum += (long) Double.parseDouble(m.group(1));
        }
        return sum;
    }

    @Test
    void aQuorumReadAsksAckReplicasAndAFullReadAsksAll() {
        try (LocalCluster c = LocalCluster.start(dir, 3)) {
            int n = 30;
            for (int k = 0; k < n; k++) {
                assertThat(c.node(1)
                                .put(entity("q" + k, "3/3"), ("v" + k).getBytes())
                                .statusCode())
                        .isEqualTo(201);
            }
            long before = replicaCalls(c, 0) - extraReadCalls(c, 0);
            for (int k = 0; k < n; k++) {
                assertThat(text(c.node(0).get(entity("q" + k, "2/3")))).isEqualTo("v" + k);
            }
            // node 0 holds every key (3 replicas of 3): its own copy and one other replica's answer make 2 of 3
            // (plus a backup for a read whose replica was slower than its p99, and probes: counted apart)
            assertThat(replicaCalls(c, 0) - extraReadCalls(c, 0) - before)
                    .as("calls for %d reads at 2/3", n)
                    .isEqualTo(n);
            before = replicaCalls(c, 0);
            for (int k = 0; k < n; k++) {
                assertThat(text(c.node(0).get(entity("q" + k, "1/3")))).isEqualTo("v" + k);
            }
            assertThat(replicaCalls(c, 0) - before)
                    .as("reads at 1/3 answer from the own copy")
                    .isZero();
            before = replicaCalls(c, 0);
            for (int k = 0; k < n; k++) {
                assertThat(text(c.node(0).get(entity("q" + k, "3/3")))).isEqualTo("v" + k);
            }
            assertThat(replicaCalls(c, 0) - before)
                    .as("reads at 3/3 ask both others")
                    .isEqualTo(2L * n);
        }
    }

    @Test
    void aQuorumReadReplacesAReplicaThatIsDownOrSilentThenAvoidsThem() throws Exception {
        try (SilentPeer silent = new SilentPeer()) {
            // the held-back replica is asked after the silent one's backup delay; the 504 would come at the timeout
            Duration timeout = Duration.ofSeconds(3);
            try (LocalCluster c = LocalCluster.start(
                    dir, 3, List.of(silent.url()), (i, config) -> config.withRequestTimeout(timeout))) {
                c.stop(2); // 4 members, RF 4: every read at 2/4 on node 0 has its own copy, one silent, one down
                // Reads of keys never written, before node 0 knows anything of its peers: a read that asks the
                // silent or the down replica first is answered by another one (404 from two replicas).
                for (int k = 0; k < 40 && silent.count("GET /v0/entity") == 0; k++) {
                    assertThat(c.node(0).get(entity("absent" + k, "2/4")).statusCode())
                            .isEqualTo(404);
                }
                assertThat(silent.count("GET /v0/entity"))
                        .as("a read asked the silent replica first")
                        .isPositive();
                int n = 20;
                for (int k = 0; k < n; k++) {
                    assertThat(c.node(0)
                                    .put(entity("s" + k, "2/4"), ("v" + k).getBytes())
                                    .statusCode())
                            .isEqualTo(201);
                }
                String silentProbes = "dht_replica_probes_total\\{peer=\"" + silent.url() + "\"}";
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    String metrics = c.node(0).metrics();
                    assertThat(metrics)
                            .as("the silent replica owes answers: avoided")
                            .contains("dht_replica_state{peer=\"" + silent.url() + "\",state=\"avoided\"} 1");
                    assertThat(metrics)
                            .as("the down replica refuses: avoided")
                            .contains("dht_replica_state{peer=\"" + c.url(2) + "\",state=\"avoided\"} 1");
                });
                long asked = silent.count("GET /v0/entity");
                long probed = metricSum(c, 0, silentProbes);
                long backedUp = metricSum(c, 0, "dht_read_backups_sent_total");
                for (int k = 0; k < n; k++) {
                    assertThat(text(c.node(0).get(entity("s" + k, "2/4"))))
                            .as("s%d", k)
                            .isEqualTo("v" + k);
                }
                // Without the choice about a third of these reads would ask it first. Now only probes do (one in
                // flight at a time, and each hangs until the timeout), and backups: a read whose chosen replica
                // was slower than its p99 asks every other one, the silent one too.
                long probes = metricSum(c, 0, silentProbes) - probed;
                long backups = metricSum(c, 0, "dht_read_backups_sent_total") - backedUp;
                assertThat(probes).isLessThanOrEqualTo(3);
                await().atMost(Duration.ofSeconds(5))
                        .untilAsserted(() -> assertThat(silent.count("GET /v0/entity") - asked)
                                .as("reads sent to the silent replica: probes " + "and backups only")
                                .isGreaterThanOrEqualTo(probes)
                                .isLessThanOrEqualTo(probes + backups));
                assertThat(backups)
                        .as("backups: reads whose chosen replica was slow (few)")
                        .isLessThan(n / 2);
            }
        }
    }

    @Test
    void lastWriteWinsAcrossCoordinators() throws Exception {
        try (LocalCluster c = LocalCluster.start(dir, 3)) {
            for (int n = 0; n < 3; n++) {
                String id = "lww" + n;
                assertThat(c.node(n).put(entity(id, "3/3"), "v1".getBytes()).statusCode())
                        .isEqualTo(201);
                assertThat(c.node((n + 1) % 3).delete(entity(id, "1/3")).statusCode())
                        .isEqualTo(202);
                assertThat(c.node((n + 2) % 3).get(entity(id, "3/3")).statusCode())
                        .isEqualTo(404);
                assertThat(c.node((n + 2) % 3)
                                .put(entity(id, "1/3"), "v2".getBytes())
                                .statusCode())
                        .isEqualTo(201);
                for (int m = 0; m < 3; m++) {
                    assertThat(text(c.node(m).get(entity(id, "3/3")))).isEqualTo("v2");
                }
            }
        }
    }

    @Test
    void skewedClocksStillOrderWriteThenDelete() {
        // node 0 runs a minute ahead, node 2 a minute behind: without clock merging node 2's delete would lose.
        // Two minutes apart is beyond the default --max-clock-ahead (30 s): the bound is raised to cover it.
        try (LocalCluster c = LocalCluster.start(
                dir,
                3,
                List.of(),
                (i, config) -> config.withCluster(
                                ClusterSettings.defaults().withClockOffsetMs(i == 0 ? 60_000 : i == 2 ? -60_000 : 0))
                        .withSecurity(config.security().withMaxClockAhead(Duration.ofMinutes(5))))) {
            Ring ring = new Ring(c.members().urls());
            for (int k = 0; k < 10; k++) {
                String id = "skew" + k;
                // 1/1 through a non-replica coordinator: the replica learns node 0's clock only from the write
                int primary = c.indexOf(ring.primaryFor(id.getBytes(StandardCharsets.UTF_8)));
                assertThat(c.node(0).put(entity(id, "1/1"), "v1".getBytes()).statusCode())
                        .isEqualTo(201);
                int deleter = primary == 2 ? 1 : 2;
                assertThat(c.node(deleter).delete(entity(id, "1/1")).statusCode())
                        .isEqualTo(202);
                assertThat(c.node(1).get(entity(id, "1/1")).statusCode())
                        .as("deleted " + id)
                        .isEqualTo(404);
                assertThat(c.node(2).put(entity(id, "2/3"), "v2".getBytes()).statusCode())
                        .isEqualTo(201);
                assertThat(text(c.node(1).get(entity(id, "3/3"))))
                        .as("recreated " + id)
                        .isEqualTo("v2");
            }
        }
    }

    @Test
    void readRepairBringsAStaleReplicaUpToDate() {
        try (LocalCluster c = LocalCluster.start(
                dir,
                3,
                List.of(),
                (i, config) -> config.withCluster(ClusterSettings.defaults().withHints(false)))) {
            c.stop(2);
            List<String> ids = new ArrayList<>();
            for (int k = 0; k < 5; k++) {
                ids.add("repair" + k);
                assertThat(c.node(k % 2)
                                .put(entity("repair" + k, "2/3"), "v".getBytes())
                                .statusCode())
                        .isEqualTo(201);
            }
            c.start(2);
            for (String id : ids) {
                assertThat(c.local(2, id).statusCode()).as("missed while down").isEqualTo(404);
                assertThat(text(c.node(0).get(entity(id, "3/3")))).isEqualTo("v");
            }
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                for (String id : ids) {
                    HttpResponse<byte[]> r = c.local(2, id);
                    assertThat(r.statusCode()).isEqualTo(200);
                    assertThat(Record.decode(r.body()).value()).isEqualTo("v".getBytes());
                }
            });
            assertThat(c.node(0).metric("dht_read_repairs_total")).isEqualTo(ids.size());
        }
    }

    @Test
    void hintedHandoffCatchesUpAReplicaWithoutAnyRead() {
        try (LocalCluster c = LocalCluster.start(
                dir,
                3,
                List.of(),
                (i, config) -> config.withCluster(ClusterSettings.defaults()
                        .withHintBounds(Duration.ofHours(1), 1 << 20, Duration.ofMillis(100))))) {
            c.stop(2);
            List<String> ids = new ArrayList<>();
            for (int k = 0; k < 5; k++) {
                ids.add("hinted" + k);
                assertThat(c.node(k % 2)
                                .put(entity("hinted" + k, "2/3"), "v".getBytes())
                                .statusCode())
                        .isEqualTo(201);
            }
            assertThat(c.node(0).delete(entity("hinted0", "2/3")).statusCode()).isEqualTo(202);
            double stored =
                    c.node(0).metric("dht_hints_stored_total") + c.node(1).metric("dht_hints_stored_total");
            assertThat(stored).isEqualTo(ids.size() + 1);
            c.start(2);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(Record.decode(c.local(2, "hinted0").body()).isTombstone())
                        .isTrue();
                for (String id : ids.subList(1, ids.size())) {
                    HttpResponse<byte[]> r = c.local(2, id);
                    assertThat(r.statusCode()).isEqualTo(200);
                    assertThat(Record.decode(r.body()).value()).isEqualTo("v".getBytes());
                }
            });
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                assertThat(c.node(0).metric("dht_hints_pending") + c.node(1).metric("dht_hints_pending"))
                        .isZero();
                assertThat(c.node(0).metric("dht_hints_delivered_total")
                                + c.node(1).metric("dht_hints_delivered_total"))
                        .isEqualTo(ids.size() + 1);
            });
        }
    }
}
