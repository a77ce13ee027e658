package dev.dht.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.Node;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.peer.PeerResponse;
import dev.dht.node.replication.Protocol;
import dev.dht.node.storage.Record;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What the node-process measurement of make bench-scale-sim rests on: the node's real peer client takes the fake
 * peers' answers as a peer's (every write stored, each call its own answer), and opens at most
 * {@link Node#PEER_CONNECTIONS} connections to one peer however many calls are in flight, counted at the peer.
 */
class FakePeersTest {
    @Test
    void thePeerClientsWritesAreStoredAndItsPoolToOnePeerStaysWithinItsBound() throws Exception {
        try (FakePeers peers = new FakePeers();
                PeerClient client = new PeerClient(
                        Node.PEER_CONNECTIONS, Node.PEER_PIPELINE, Duration.ofSeconds(1), Duration.ofSeconds(30))) {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ports.add(peers.listen(0));
            }
            int calls = 3000;
            CountDownLatch done = new CountDownLatch(calls);
            AtomicInteger stored = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            for (int i = 0; i < calls; i++) {
                int port = ports.get(i % 3);
                byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
                client.send(
                        "http://127.0.0.1:" + port,
                        Protocol.write(Protocol.entityTarget(key), Record.value(i + 1, new byte[1024]), 1, null),
                        System.nanoTime() + TimeUnit.SECONDS.toNanos(10),
                        new PeerCallback() {
                            @Override
                            public void completed(PeerResponse response) {
                                if (Protocol.writeStored(response)) {
                                    stored.incrementAndGet();
                                }
                                most.accumulateAndGet(peers.port(port).open.get(), Math::max);
                                done.countDown();
                            }

                            @Override
                            public void failed(boolean timeout, String reason) {
                                done.countDown();
                            }
                        });
            }
            assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(stored.get()).isEqualTo(calls);
            int requests = 0;
            for (int port : ports) {
                requests += peers.port(port).requests.get();
            }
            assertThat(requests).isEqualTo(calls);
            assertThat(most.get())
                    .as("connections open to one peer, at the peer")
                    .isBetween(1, Node.PEER_CONNECTIONS);
        }
    }
}
