package dev.dht.node.cluster;

import static dev.dht.node.cluster.GatewayTimeout.assertAnsweredWithinBound;
import static dev.dht.node.cluster.Reply.ACCEPTED;
import static dev.dht.node.cluster.Reply.BAD_REQUEST;
import static dev.dht.node.cluster.Reply.CREATED;
import static dev.dht.node.cluster.Reply.NOT_FOUND;
import static dev.dht.node.cluster.Reply.ok;
import static dev.dht.node.cluster.TestData.randomId;
import static dev.dht.node.cluster.TestData.randomValue;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The course's ThreeNodeTest (2020/2021) on three node processes, every method; node indices are taken mod 3.
 * Stricter than the course in the same ways as {@link TwoNodeIT}: no 10 ms sleeps, no whole-cluster restart per
 * round, 504 within the course client's 5 s, copies counted with every node restarted alone, and the copy counts name which nodes
 * must hold them (a coordinator outside the key's replicas keeps nothing).
 */
class ThreeNodeIT {
    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension(3, () -> dir);

    private static void assertEveryNodeReads(ProcessCluster c, String id, int ack, int from, Reply expected) {
        for (int node = 0; node < c.size(); node++) {
            assertThat(c.node(node).get(id, ack, from))
                    .as("GET %d/%d via node %d", ack, from, node)
                    .isEqualTo(expected);
        }
    }

    @Test
    void tooSmallRF(ProcessCluster c) {
        for (int node = 0; node < c.size(); node++) {
            assertThat(c.node(node).get(randomId(), 0, 3)).isEqualTo(BAD_REQUEST);
            assertThat(c.node(node).put(randomId(), randomValue(), 0, 3)).isEqualTo(BAD_REQUEST);
            assertThat(c.node(node).delete(randomId(), 0, 3)).isEqualTo(BAD_REQUEST);
        }
    }

    @Test
    void tooBigRF(ProcessCluster c) {
        for (int node = 0; node < c.size(); node++) {
            assertThat(c.node(node).get(randomId(), 4, 3)).isEqualTo(BAD_REQUEST);
            assertThat(c.node(node).put(randomId(), randomValue(), 4, 3)).isEqualTo(BAD_REQUEST);
            assertThat(c.node(node).delete(randomId(), 4, 3)).isEqualTo(BAD_REQUEST);
        }
    }

    /** Node 0 down: 3/3 through node 1 cannot be met, 504 for GET, PUT and DELETE before the course client gives up. */
    @Test
    void unreachableRF(ProcessCluster c) {
        c.stop(0);
        String id = randomId();
        assertAnsweredWithinBound("GET 3/3", () -> c.node(1).get(id, 3, 3));
        assertAnsweredWithinBound("PUT 3/3", () -> c.node(1).put(id, randomValue(), 3, 3));
        assertAnsweredWithinBound("DELETE 3/3", () -> c.node(1).delete(id, 3, 3));
    }

    /** For each node: a new value PUT 2/3 through it is read 2/3 through every node. */
    @Test
    void overlapQuorum(ProcessCluster c) {
        String id = randomId();
        for (int writer = 0; writer < c.size(); writer++) {
            byte[] value = randomValue();
            assertThat(c.node(writer).put(id, value, 2, 3)).isEqualTo(CREATED);
            assertEveryNodeReads(c, id, 2, 3, ok(value));
        }
    }

    /** For each node: a new value PUT 1/3 through it is read 3/3 through every node. */
    @Test
    void overlap(ProcessCluster c) {
        String id = randomId();
        for (int writer = 0; writer < c.size(); writer++) {
            byte[] value = randomValue();
            assertThat(c.node(writer).put(id, value, 1, 3)).isEqualTo(CREATED);
            assertEveryNodeReads(c, id, 3, 3, ok(value));
        }
    }

    /** PUT 3/3 through n, DELETE 2/3 through n+1 right after: GET 2/3 through every node is 404. */
    @Test
    void overlapQuorumDelete(ProcessCluster c) {
        String id = randomId();
        for (int n = 0; n < c.size(); n++) {
            assertThat(c.node(n).put(id, randomValue(), 3, 3)).isEqualTo(CREATED);
            assertThat(c.node((n + 1) % 3).delete(id, 2, 3)).isEqualTo(ACCEPTED);
            assertEveryNodeReads(c, id, 2, 3, NOT_FOUND);
        }
    }

    /** PUT 3/3 through n, DELETE 1/3 through n+1 right after: GET 3/3 through every node is 404. */
    @Test
    void overlapDelete(ProcessCluster c) {
        String id = randomId();
        for (int n = 0; n < c.size(); n++) {
            assertThat(c.node(n).put(id, randomValue(), 3, 3)).isEqualTo(CREATED);
            assertThat(c.node((n + 1) % 3).delete(id, 1, 3)).isEqualTo(ACCEPTED);
            assertEveryNodeReads(c, id, 3, 3, NOT_FOUND);
        }
    }

    /** n down while n+1 takes a PUT 2/3; n back: GET 2/3 through n returns it. */
    @Test
    void missedWrite(ProcessCluster c) {
        for (int n = 0; n < c.size(); n++) {
            String id = randomId();
            byte[] value = randomValue();

            c.stop(n);
            assertThat(c.node((n + 1) % 3).put(id, value, 2, 3)).isEqualTo(CREATED);
            c.start(n);

            assertThat(c.node(n).get(id, 2, 3)).as("n = %d", n).isEqualTo(ok(value));
        }
    }

    /** Written 3/3 and deleted 3/3; n down while n+2 writes it again 2/3; n back: GET 3/3 through n sees v2. */
    @Test
    void missedRecreate(ProcessCluster c) {
        for (int n = 0; n < c.size(); n++) {
            String id = randomId();
            byte[] value1 = randomValue();
            byte[] value2 = randomValue();

            assertThat(c.node(n).put(id, value1, 3, 3)).isEqualTo(CREATED);
            assertThat(c.node((n + 1) % 3).delete(id, 3, 3)).isEqualTo(ACCEPTED);
            c.stop(n);
            assertThat(c.node((n + 2) % 3).put(id, value2, 2, 3)).isEqualTo(CREATED);
            c.start(n);

            assertThat(c.node(n).get(id, 3, 3)).as("n = %d", n).isEqualTo(ok(value2));
        }
    }

    /** n holds a value, goes down, n+1 deletes it 2/3; n back: GET 3/3 through n is 404. */
    @Test
    void missedDelete(ProcessCluster c) {
        for (int n = 0; n < c.size(); n++) {
            String id = randomId();

            assertThat(c.node(n).put(id, randomValue(), 3, 3)).isEqualTo(CREATED);
            c.stop(n);
            assertThat(c.node((n + 1) % 3).delete(id, 2, 3)).isEqualTo(ACCEPTED);
            c.start(n);

            assertThat(c.node(n).get(id, 3, 3)).as("n = %d", n).isEqualTo(NOT_FOUND);
        }
    }

    /** With n down, the other two serve GET 2/3 and DELETE 2/3. */
    @Test
    void tolerateFailure(ProcessCluster c) {
        for (int n = 0; n < c.size(); n++) {
            String id = randomId();
            byte[] value = randomValue();
            int next = (n + 1) % 3;
            int afterNext = (n + 2) % 3;

            assertThat(c.node(n).put(id, value, 3, 3)).isEqualTo(CREATED);
            c.stop(n);
            assertThat(c.node(next).get(id, 2, 3)).as("n = %d", n).isEqualTo(ok(value));
            assertThat(c.node(afterNext).get(id, 2, 3)).as("n = %d", n).isEqualTo(ok(value));

            assertThat(c.node(next).delete(id, 2, 3)).isEqualTo(ACCEPTED);
            assertThat(c.node(next).get(id, 2, 3)).as("n = %d", n).isEqualTo(NOT_FOUND);
            assertThat(c.node(afterNext).get(id, 2, 3)).as("n = %d", n).isEqualTo(NOT_FOUND);
            c.start(n);
        }
    }

    /** PUT 1/1 through node 0: exactly one copy, on the key's owner, for a key owned by each node. */
    @Test
    void respectRF1(ProcessCluster c) {
        assertExactCopies(
                c,
                1,
                List.of(
                        replicas -> replicas.equals(List.of(0)),
                        replicas -> replicas.equals(List.of(1)),
                        replicas -> replicas.equals(List.of(2))));
    }

    /**
     * PUT 2/2 through node 0: exactly two copies, on the key's first two replicas, for keys whose replicas include
     * node 0 (first or second) and for a key whose replicas do not (node 0 coordinates it and must keep nothing).
     */
    @Test
    void respectRF2(ProcessCluster c) {
        assertExactCopies(
                c,
                2,
                List.of(
                        replicas -> replicas.get(0) == 0,
                        replicas -> replicas.get(1) == 0,
                        replicas -> !replicas.contains(0)));
    }

    /** Writes from/from through node 0, one key per placement of its replicas, then counts the copies. */
    private static void assertExactCopies(ProcessCluster c, int from, List<Predicate<List<Integer>>> placements) {
        Map<String, List<Integer>> replicasById = new TreeMap<>();
        for (Predicate<List<Integer>> placement : placements) {
            String id = c.randomIdPlaced(from, placement);
            replicasById.put(id, c.replicasOf(id, from));
        }
        byte[] value = randomValue();
        for (String id : replicasById.keySet()) {
            assertThat(c.node(0).put(id, value, from, from)).isEqualTo(CREATED);
        }

        Map<String, Map<Integer, Reply>> copies = LocalCopies.copies(c, replicasById.keySet());

        for (Map.Entry<String, List<Integer>> e : replicasById.entrySet()) {
            Map<Integer, Reply> expected = new TreeMap<>();
            e.getValue().forEach(node -> expected.put(node, ok(value)));
            assertThat(copies.get(e.getKey()))
                    .as("copies of %s, replicas %s", e.getKey(), e.getValue())
                    .hasSize(from)
                    .isEqualTo(expected);
        }
    }
}
