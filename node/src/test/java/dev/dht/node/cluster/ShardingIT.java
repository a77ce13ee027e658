package dev.dht.node.cluster;

import static dev.dht.node.cluster.Reply.ACCEPTED;
import static dev.dht.node.cluster.Reply.CREATED;
import static dev.dht.node.cluster.Reply.NOT_FOUND;
import static dev.dht.node.cluster.Reply.ok;
import static dev.dht.node.cluster.TestData.randomId;
import static dev.dht.node.cluster.TestData.randomValue;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The course's ShardingTest (2020/2021) on two node processes. No request but {@link #distribute} names
 * {@code replicas}, so the default applies: 2/2 on two nodes. Each round writes a fresh value (the course reuses
 * one), so every round after the first also checks an overwrite.
 */
class ShardingIT {
    private static final byte[] EMPTY = new byte[0];

    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension(2, () -> dir);

    private static void assertEveryNodeReads(ProcessCluster c, String id, Reply expected) {
        for (int node = 0; node < c.size(); node++) {
            assertThat(c.node(node).get(id)).as("GET %s via node %d", id, node).isEqualTo(expected);
        }
    }

    /** PUT via each node in turn; GET via every node sees it. */
    @Test
    void insert(ProcessCluster c) {
        String id = randomId();
        for (int writer = 0; writer < c.size(); writer++) {
            byte[] value = randomValue();
            assertThat(c.node(writer).put(id, value)).isEqualTo(CREATED);
            assertEveryNodeReads(c, id, ok(value));
        }
    }

    /** The same with an empty value: 200 with an empty body, not 404. */
    @Test
    void insertEmpty(ProcessCluster c) {
        String id = randomId();
        for (int writer = 0; writer < c.size(); writer++) {
            assertThat(c.node(writer).put(id, EMPTY)).isEqualTo(CREATED);
            assertEveryNodeReads(c, id, ok(EMPTY));
        }
    }

    /** Two keys written and deleted through different nodes; each delete leaves the other key alone. */
    @Test
    void lifecycle2keys(ProcessCluster c) {
        String key1 = randomId();
        byte[] value1 = randomValue();
        String key2 = randomId();
        byte[] value2 = randomValue();

        assertThat(c.node(0).put(key1, value1)).isEqualTo(CREATED);
        assertEveryNodeReads(c, key1, ok(value1));

        assertThat(c.node(1).put(key2, value2)).isEqualTo(CREATED);
        assertEveryNodeReads(c, key1, ok(value1));
        assertEveryNodeReads(c, key2, ok(value2));

        assertThat(c.node(0).delete(key1)).isEqualTo(ACCEPTED);
        assertThat(c.node(1).delete(key1)).isEqualTo(ACCEPTED);
        assertEveryNodeReads(c, key1, NOT_FOUND);
        assertEveryNodeReads(c, key2, ok(value2));

        assertThat(c.node(0).delete(key2)).isEqualTo(ACCEPTED);
        assertThat(c.node(1).delete(key2)).isEqualTo(ACCEPTED);
        assertEveryNodeReads(c, key1, NOT_FOUND);
        assertEveryNodeReads(c, key2, NOT_FOUND);
    }

    /** A later PUT through the other node wins everywhere. */
    @Test
    void upsert(ProcessCluster c) {
        String id = randomId();
        byte[] value1 = randomValue();
        byte[] value2 = randomValue();
        assertThat(c.node(0).put(id, value1)).isEqualTo(CREATED);
        assertThat(c.node(1).put(id, value2)).isEqualTo(CREATED);
        assertEveryNodeReads(c, id, ok(value2));
    }

    /** Overwriting with an empty value keeps the key, with an empty body. */
    @Test
    void upsertEmpty(ProcessCluster c) {
        String id = randomId();
        assertThat(c.node(0).put(id, randomValue())).isEqualTo(CREATED);
        assertThat(c.node(0).put(id, EMPTY)).isEqualTo(CREATED);
        assertEveryNodeReads(c, id, ok(EMPTY));
    }

    /** Written through both nodes, deleted through one: gone on both. */
    @Test
    void delete(ProcessCluster c) {
        String id = randomId();
        assertThat(c.node(0).put(id, randomValue())).isEqualTo(CREATED);
        assertThat(c.node(1).put(id, randomValue())).isEqualTo(CREATED);
        assertThat(c.node(0).delete(id)).isEqualTo(ACCEPTED);
        assertEveryNodeReads(c, id, NOT_FOUND);
    }

    /**
     * PUT 1/1 of the same key through node 0 and again through node 1: exactly one node, the key's owner, holds
     * it, whichever node coordinated (so one of the two writes went through a node that must keep no copy).
     * Counted with every node restarted alone. Several keys share the one restart.
     */
    @Test
    void distribute(ProcessCluster c) {
        Map<String, byte[]> values = new HashMap<>();
        for (int k = 0; k < 4; k++) {
            String id = randomId();
            values.put(id, randomValue());
            assertThat(c.node(0).put(id, values.get(id), 1, 1)).isEqualTo(CREATED);
            assertThat(c.node(1).put(id, values.get(id), 1, 1)).isEqualTo(CREATED);
        }
        Map<String, Map<Integer, Reply>> copies = LocalCopies.copies(c, new ArrayList<>(values.keySet()));
        for (Map.Entry<String, Map<Integer, Reply>> e : copies.entrySet()) {
            int owner = c.replicasOf(e.getKey(), 1).get(0);
            assertThat(e.getValue())
                    .as("copies of %s (owner: node %d)", e.getKey(), owner)
                    .isEqualTo(Map.of(owner, ok(values.get(e.getKey()))));
        }
    }
}
