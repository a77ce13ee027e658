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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The course's TwoNodeTest (2020/2021) on two node processes, every method. "For each n" scenarios run once with
 * each node as the one that misses writes ({@code n}) while the other ({@code o}) serves them. Differences, all
 * making the test stricter: no 10 ms sleeps between conflicting writes (the node orders them with a hybrid
 * logical clock), no restart of the whole cluster before each round (fresh keys instead), the 504s must come
 * before the course client gives up (5 s), and copies are counted with every node restarted alone.
 */
class TwoNodeIT {
    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension(2, () -> dir);

    @Test
    void tooSmallRF(ProcessCluster c) {
        for (int node = 0; node < c.size(); node++) {
            assertThat(c.node(node).get(randomId(), 0, 2)).isEqualTo(BAD_REQUEST);
            assertThat(c.node(node).put(randomId(), randomValue(), 0, 2)).isEqualTo(BAD_REQUEST);
            assertThat(c.node(node).delete(randomId(), 0, 2)).isEqualTo(BAD_REQUEST);
        }
    }

    @Test
    void tooBigRF(ProcessCluster c) {
        for (int node = 0; node < c.size(); node++) {
            assertThat(c.node(node).get(randomId(), 3, 2)).isEqualTo(BAD_REQUEST);
            assertThat(c.node(node).put(randomId(), randomValue(), 3, 2)).isEqualTo(BAD_REQUEST);
            assertThat(c.node(node).delete(randomId(), 3, 2)).isEqualTo(BAD_REQUEST);
        }
    }

    /** Node 0 down: 2/2 through node 1 cannot be met, 504 for GET, PUT and DELETE before the course client gives up. */
    @Test
    void unreachableRF(ProcessCluster c) {
        c.stop(0);
        String id = randomId();
        assertAnsweredWithinBound("GET 2/2", () -> c.node(1).get(id, 2, 2));
        assertAnsweredWithinBound("PUT 2/2", () -> c.node(1).put(id, randomValue(), 2, 2));
        assertAnsweredWithinBound("DELETE 2/2", () -> c.node(1).delete(id, 2, 2));
    }

    /** A PUT 1/2 is seen by GET 2/2 through either node; a later PUT 1/2 through the other node wins. */
    @Test
    void overlapRead(ProcessCluster c) {
        String id = randomId();
        byte[] value1 = randomValue();
        byte[] value2 = randomValue();

        assertThat(c.node(0).put(id, value1, 1, 2)).isEqualTo(CREATED);
        assertThat(c.node(0).get(id, 2, 2)).isEqualTo(ok(value1));
        assertThat(c.node(1).get(id, 2, 2)).isEqualTo(ok(value1));

        assertThat(c.node(1).put(id, value2, 1, 2)).isEqualTo(CREATED);
        assertThat(c.node(0).get(id, 2, 2)).isEqualTo(ok(value2));
        assertThat(c.node(1).get(id, 2, 2)).isEqualTo(ok(value2));
    }

    /** A PUT 2/2 is seen by GET 1/2 through either node; a later PUT 2/2 through the other node wins. */
    @Test
    void overlapWrite(ProcessCluster c) {
        String id = randomId();
        byte[] value1 = randomValue();
        byte[] value2 = randomValue();

        assertThat(c.node(0).put(id, value1, 2, 2)).isEqualTo(CREATED);
        assertThat(c.node(0).get(id, 1, 2)).isEqualTo(ok(value1));
        assertThat(c.node(1).get(id, 1, 2)).isEqualTo(ok(value1));

        assertThat(c.node(1).put(id, value2, 2, 2)).isEqualTo(CREATED);
        assertThat(c.node(0).get(id, 1, 2)).isEqualTo(ok(value2));
        assertThat(c.node(1).get(id, 1, 2)).isEqualTo(ok(value2));
    }

    /** PUT 2/2 then DELETE 2/2 right after: GET 1/2 through either node is 404; then the same through node 1. */
    @Test
    void overlapDelete(ProcessCluster c) {
        String id = randomId();
        for (int writer = 0; writer < c.size(); writer++) {
            assertThat(c.node(writer).put(id, randomValue(), 2, 2)).isEqualTo(CREATED);
            assertThat(c.node(writer).delete(id, 2, 2)).isEqualTo(ACCEPTED);
            assertThat(c.node(0).get(id, 1, 2))
                    .as("round %d via node 0", writer)
                    .isEqualTo(NOT_FOUND);
            assertThat(c.node(1).get(id, 1, 2))
                    .as("round %d via node 1", writer)
                    .isEqualTo(NOT_FOUND);
        }
    }

    /** n down while o takes a PUT 1/2; n back: GET 2/2 through n returns it. */
    @Test
    void missedWrite(ProcessCluster c) {
        for (int n = 0; n < c.size(); n++) {
            int o = 1 - n;
            String id = randomId();
            byte[] value = randomValue();

            c.stop(n);
            assertThat(c.node(o).put(id, value, 1, 2)).isEqualTo(CREATED);
            c.start(n);

            assertThat(c.node(n).get(id, 2, 2)).as("n = %d", n).isEqualTo(ok(value));
        }
    }

    /** n holds a value, goes down, o deletes it 1/2; n back: GET 2/2 through n is 404 (the tombstone is newer). */
    @Test
    void missedDelete(ProcessCluster c) {
        for (int n = 0; n < c.size(); n++) {
            int o = 1 - n;
            String id = randomId();

            assertThat(c.node(n).put(id, randomValue(), 2, 2)).isEqualTo(CREATED);
            c.stop(n);
            assertThat(c.node(o).delete(id, 1, 2)).isEqualTo(ACCEPTED);
            c.start(n);

            assertThat(c.node(n).get(id, 2, 2)).as("n = %d", n).isEqualTo(NOT_FOUND);
        }
    }

    /** n holds v1, goes down, o overwrites with v2 at 1/2; n back: GET 2/2 through n returns v2. */
    @Test
    void missedOverwrite(ProcessCluster c) {
        for (int n = 0; n < c.size(); n++) {
            int o = 1 - n;
            String id = randomId();
            byte[] value1 = randomValue();
            byte[] value2 = randomValue();

            assertThat(c.node(n).put(id, value1, 2, 2)).isEqualTo(CREATED);
            c.stop(n);
            assertThat(c.node(o).put(id, value2, 1, 2)).isEqualTo(CREATED);
            c.start(n);

            assertThat(c.node(n).get(id, 2, 2)).as("n = %d", n).isEqualTo(ok(value2));
        }
    }

    /** Written and deleted everywhere; n down while o writes it again 1/2; n back: GET 2/2 through n sees v2. */
    @Test
    void missedRecreate(ProcessCluster c) {
        for (int n = 0; n < c.size(); n++) {
            int o = 1 - n;
            String id = randomId();
            byte[] value1 = randomValue();
            byte[] value2 = randomValue();

            assertThat(c.node(n).put(id, value1, 2, 2)).isEqualTo(CREATED);
            assertThat(c.node(n).delete(id, 2, 2)).isEqualTo(ACCEPTED);
            c.stop(n);
            assertThat(c.node(o).put(id, value2, 1, 2)).isEqualTo(CREATED);
            c.start(n);

            assertThat(c.node(n).get(id, 2, 2)).as("n = %d", n).isEqualTo(ok(value2));
        }
    }

    /** With n down, o alone serves GET and DELETE at 1/2. */
    @Test
    void tolerateFailure(ProcessCluster c) {
        for (int n = 0; n < c.size(); n++) {
            int o = 1 - n;
            String id = randomId();
            byte[] value = randomValue();

            assertThat(c.node(n).put(id, value, 2, 2)).isEqualTo(CREATED);
            c.stop(n);
            assertThat(c.node(o).get(id, 1, 2)).as("n = %d", n).isEqualTo(ok(value));

            assertThat(c.node(o).delete(id, 1, 2)).isEqualTo(ACCEPTED);
            assertThat(c.node(o).get(id, 1, 2)).as("n = %d", n).isEqualTo(NOT_FOUND);
            c.start(n);
        }
    }

    /**
     * PUT 1/1 through node 0 stores exactly one copy, on the key's owner: one key owned by node 0 and one owned by
     * node 1 (node 0 coordinates without being a replica and must keep nothing). Counted with every node alone.
     */
    @Test
    void respectRF(ProcessCluster c) {
        String ownedBy0 = c.randomIdPlaced(1, replicas -> replicas.equals(List.of(0)));
        String ownedBy1 = c.randomIdPlaced(1, replicas -> replicas.equals(List.of(1)));
        byte[] value = randomValue();
        assertThat(c.node(0).put(ownedBy0, value, 1, 1)).isEqualTo(CREATED);
        assertThat(c.node(0).put(ownedBy1, value, 1, 1)).isEqualTo(CREATED);

        Map<String, Map<Integer, Reply>> copies = LocalCopies.copies(c, List.of(ownedBy0, ownedBy1));

        assertThat(copies.get(ownedBy0)).as("copies of a key owned by node 0").isEqualTo(Map.of(0, ok(value)));
        assertThat(copies.get(ownedBy1))
                .as("copies of a key owned by node 1, written through node 0")
                .isEqualTo(Map.of(1, ok(value)));
    }
}
