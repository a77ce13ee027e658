package dev.dht.node.cluster;

import static dev.dht.node.cluster.Reply.ACCEPTED;
import static dev.dht.node.cluster.Reply.CREATED;
import static dev.dht.node.cluster.Reply.NOT_FOUND;
import static dev.dht.node.cluster.Reply.ok;
import static dev.dht.node.cluster.TestData.randomId;
import static dev.dht.node.cluster.TestData.randomValue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.support.MemberTlsMode;
import dev.dht.node.support.NodeProcess;
import dev.dht.node.support.RawHttp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Conflicting writes through nodes whose clocks disagree by seconds ({@code --clock-offset-ms}), one right after
 * the other, as a client that waits for each answer would issue them. Without clock merging the second write
 * would carry the older timestamp and lose. Each pair runs for several quorum combinations in which the two
 * writes overlap (ack1 + ack2 > from, or the same single replica), so last write wins must hold at once.
 */
final class ClockSkewScenarios {
    private static final int KEYS_PER_COMBINATION = 5;

    private ClockSkewScenarios() {}

    /** The replicas parameters of the first and the second write. */
    record Quorums(int firstAck, int firstFrom, int secondAck, int secondFrom) {
        @Override
        public String toString() {
            return firstAck + "/" + firstFrom + " then " + secondAck + "/" + secondFrom;
        }
    }

    /** PUT through the fast node, DELETE through the slow one right after: 404 at full RF through every node. */
    static void writeThenDelete(ProcessCluster c, int fast, int slow, List<Quorums> combinations) {
        int n = c.size();
        for (Quorums q : combinations) {
            for (int k = 0; k < KEYS_PER_COMBINATION; k++) {
                String id = randomId();
                assertThat(c.node(fast).put(id, randomValue(), q.firstAck(), q.firstFrom()))
                        .as("PUT %s", q)
                        .isEqualTo(CREATED);
                assertThat(c.node(slow).delete(id, q.secondAck(), q.secondFrom()))
                        .as("DELETE %s", q)
                        .isEqualTo(ACCEPTED);
                for (int node = 0; node < n; node++) {
                    assertThat(c.node(node).get(id, n, n))
                            .as("%s: GET %d/%d via node %d", q, n, n, node)
                            .isEqualTo(NOT_FOUND);
                }
            }
        }
    }

    /**
     * A key written at full RF, DELETE through the fast node, PUT of a new value through the slow one right
     * after: the new value at full RF through every node.
     */
    static void deleteThenRecreate(ProcessCluster c, int fast, int slow, List<Quorums> combinations) {
        int n = c.size();
        for (Quorums q : combinations) {
            for (int k = 0; k < KEYS_PER_COMBINATION; k++) {
                String id = randomId();
                byte[] recreated = randomValue();
                assertThat(c.node(slow).put(id, randomValue(), n, n)).isEqualTo(CREATED);
                assertThat(c.node(fast).delete(id, q.firstAck(), q.firstFrom()))
                        .as("DELETE %s", q)
                        .isEqualTo(ACCEPTED);
                assertThat(c.node(slow).put(id, recreated, q.secondAck(), q.secondFrom()))
                        .as("PUT %s", q)
                        .isEqualTo(CREATED);
                for (int node = 0; node < n; node++) {
                    assertThat(c.node(node).get(id, n, n))
                            .as("%s: GET %d/%d via node %d", q, n, n, node)
                            .isEqualTo(ok(recreated));
                }
            }
        }
    }

    /**
     * Checks that each node's clock really runs at its offset, so the scenarios are not vacuous. Reads the clock
     * a node attaches to its answers of the internal protocol ({@code X-Dht-Clock}); only meaningful before the
     * nodes exchanged anything, since every message they exchange merges the sender's clock into the receiver's.
     */
    static void assertClockOffsets(ProcessCluster c, long... offsetsMs) {
        for (int node = 0; node < c.size(); node++) {
            long expected = System.currentTimeMillis() + offsetsMs[node];
            assertThat(physicalClockMillis(c.process(node)))
                    .as("node %d's clock", node)
                    .isCloseTo(expected, within(1000L));
        }
    }

    private static long physicalClockMillis(NodeProcess node) {
        // on the member port, as a member asks (over TLS when the suite runs with -Ddht.test.memberTls=true)
        try (RawHttp http =
                new RawHttp(MemberTlsMode.connect(node.memberUri("/").getPort()))) {
            http.send("GET /v0/entity?id=" + randomId() + " HTTP/1.1\r\nHost: localhost\r\nX-Dht-Internal: 1\r\n"
                    + "Connection: close\r\n\r\n");
            String clock = http.read().headers().get("x-dht-clock");
            return HybridLogicalClock.physicalMillis(Long.parseLong(clock));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
