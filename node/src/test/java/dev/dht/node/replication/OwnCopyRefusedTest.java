package dev.dht.node.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.http.ChunkSource;
import dev.dht.node.http.EntityRequest;
import dev.dht.node.http.Replicas;
import dev.dht.node.http.Responder;
import dev.dht.node.http.WorkerPool;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.plane.MemberPlane;
import dev.dht.node.storage.DigestScan;
import dev.dht.node.storage.RangeCursor;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StorageOptions;
import dev.dht.node.storage.Store;
import dev.dht.node.storage.StoreException;
import dev.dht.node.storage.StoreStats;
import dev.dht.node.storage.WriteOutcome;
import dev.dht.node.support.TestNode;
import dev.dht.node.topology.Learner;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import one.nio.http.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator whose own store refuses writes (RocksDB on a full disk: make chaos fills a real one; in-process a
 * full filesystem needs root, so the real store is wrapped to refuse on demand, as it does then). Found by make
 * chaos: a refused write of the coordinator's own copy, made off the selector (a worker, or the peer client's I/O
 * thread in a conflict round or a read repair), threw out of the operation. The write was never answered, and on the
 * I/O thread the exception ended the thread that every call to the other members depends on.
 */
class OwnCopyRefusedTest {
    @TempDir
    Path dir;

    @Test
    void aWriteWhoseOwnCopyIsRefusedIsAnswered504NotLeftHanging() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            f.store.refuse = true;
            Response answer = f.send(EntityRequest.Op.PUT, "k", "v".getBytes(StandardCharsets.UTF_8));
            assertThat(answer.getStatus())
                    .as("2/2 with the own copy refused: not enough replicas")
                    .isEqualTo(504);
            f.store.refuse = false;
            assertThat(f.send(EntityRequest.Op.PUT, "k", "w".getBytes(StandardCharsets.UTF_8))
                            .getStatus())
                    .isEqualTo(201);
        }
    }

    /**
     * The path that stopped a node in make chaos: a read whose last replica fails at its deadline completes on
     * the I/O thread (the call's expiry), and its repair of the stale own copy is refused.
     */
    @Test
    void aRefusedReadRepairOnThePeerClientsThreadLeavesItWorking() throws Exception {
        int silentPort = TestNode.freePort(); // a member whose member port accepts and never answers
        try (ServerSocket silent = new ServerSocket(
                        silentPort + SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET,
                        50,
                        InetAddress.getLoopbackAddress());
                Fixture f = new Fixture(dir, "http://localhost:" + silentPort)) {
            byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            f.store.applyIfNewer(key, Record.value(f.clock.now(), "old".getBytes(StandardCharsets.UTF_8)));
            long newer = f.clock.now() + (1000L << 16);
            HttpRequest.Builder write = HttpRequest.newBuilder(f.peer.memberUri("/v0/entity?id=k"))
                    .header("X-Dht-Internal", "1")
                    .header("X-Dht-Timestamp", Long.toString(newer))
                    .PUT(HttpRequest.BodyPublishers.ofString("new"));
            assertThat(f.peer.send(write).statusCode()).isEqualTo(201);
            f.store.refuse = true;
            // 3/3: the silent member fails it at the deadline, on the I/O thread, which then repairs the own copy
            assertThat(f.send(EntityRequest.Op.GET, "k", null, new Replicas(3, 3))
                            .getStatus())
                    .isEqualTo(504);
            for (int i = 0; i < 3; i++) { // and still reads: a replica that stays silent is replaced by the next
                Response read = f.send(EntityRequest.Op.GET, "k", null, new Replicas(2, 3));
                assertThat(read.getStatus()).as("read %d", i).isEqualTo(200);
                assertThat(new String(read.getBody(), StandardCharsets.UTF_8)).isEqualTo("new");
            }
        }
    }

    /** The coordinator under test (not serving itself) and one real peer node; a key's two replicas are both. */
    private static final class Fixture implements AutoCloseable {
        final RefusingStore store;
        final HybridLogicalClock clock = new HybridLogicalClock();
        final PeerClient client = new PeerClient(
                new MemberPlane(SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET),
                2,
                16,
                Duration.ofSeconds(1),
                Duration.ofSeconds(30));
        final WorkerPool workers = new WorkerPool("test-worker", 2, 16);
        final TestNode peer;
        final String peerUrl;
        final Coordinator coordinator;

        /** @param others members that are not started here (a silent one) */
        Fixture(Path dir, String... others) {
            String self = "http://localhost:" + TestNode.freePort();
            int peerPort = TestNode.freePort();
            peerUrl = "http://localhost:" + peerPort;
            List<String> urls = new ArrayList<>(List.of(self, peerUrl));
            urls.addAll(List.of(others));
            ClusterMembers members = ClusterMembers.of(urls);
            // The peer is an existing member: a new data directory would keep it deciding whether it lost its data
            // (dev.dht.node.rebuild), refusing reads, since no other member of this fixture can answer it.
            RocksStore.open(dir.resolve("peer"), StorageOptions.node(4 << 20, 8 << 20))
                    .close();
            peer = TestNode.start(
                    NodeConfig.defaults(peerPort, dir.resolve("peer")).withCluster(members, peerUrl));
            store = new RefusingStore(RocksStore.open(dir.resolve("self"), StorageOptions.node(4 << 20, 8 << 20)));
            coordinator = new Coordinator(
                    store,
                    clock,
                    client,
                    Topology.fixed(self, members, urls.size()),
                    HintSink.NONE,
                    Duration.ofSeconds(1),
                    workers,
                    Learner.NONE,
                    ReadGate.OPEN);
        }

        Response send(EntityRequest.Op op, String id, byte[] body) throws Exception {
            return send(op, id, body, new Replicas(2, 2));
        }

        Response send(EntityRequest.Op op, String id, byte[] body, Replicas replicas) throws Exception {
            CompletableFuture<Response> answer = new CompletableFuture<>();
            EntityRequest request =
                    new EntityRequest(op, id, id.getBytes(StandardCharsets.UTF_8), body, replicas, false, 0, 0, null);
            coordinator.handle(request, new Responder() {
                @Override
                public void send(Response response) {
                    answer.complete(response);
                }

                @Override
                public void stream(ChunkSource source) {
                    answer.completeExceptionally(new AssertionError("no stream expected"));
                }
            });
            return answer.get(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            client.close();
            try {
                workers.shutdown(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            peer.close();
            store.close();
        }
    }

    /** The real RocksDB store, refusing every write while {@link #refuse} is set, with RocksDB's disk-full error. */
    private static final class RefusingStore implements Store {
        private final Store real;
        volatile boolean refuse;

        RefusingStore(Store real) {
            this.real = real;
        }

        private void check() {
            if (refuse) {
                throw new StoreException(
                        "write failed: While appending to file: 000010.log: No space left on device", null);
            }
        }

        @Override
        public Record get(byte[] key) {
            return real.get(key);
        }

        @Override
        public Record getIfInMemory(byte[] key) {
            return real.getIfInMemory(key);
        }

        @Override
        public boolean applyIfNewer(byte[] key, Record record) {
            check();
            return real.applyIfNewer(key, record);
        }

        @Override
        public TryApply tryApplyIfNewer(byte[] key, Record record) {
            check();
            return real.tryApplyIfNewer(key, record);
        }

        @Override
        public boolean applyAtEndOfPass(byte[] key, Record record, WriteOutcome outcome) {
            return false; // the coordinator here never runs on a selector
        }

        @Override
        public boolean removeIfSame(byte[] key, Record expected) {
            check();
            return real.removeIfSame(key, expected);
        }

        @Override
        public RangeCursor range(byte[] fromInclusive, byte[] toExclusive) {
            return real.range(fromInclusive, toExclusive);
        }

        @Override
        public DigestScan digestScan(long notBefore, java.util.function.LongSupplier clock) {
            return real.digestScan(notBefore, clock);
        }

        @Override
        public StoreStats stats() {
            return real.stats();
        }

        @Override
        public void close() {
            real.close();
        }
    }
}
