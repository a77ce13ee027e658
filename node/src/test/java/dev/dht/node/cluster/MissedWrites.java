package dev.dht.node.cluster;

import static dev.dht.node.cluster.Reply.ACCEPTED;
import static dev.dht.node.cluster.Reply.CREATED;
import static dev.dht.node.cluster.Reply.NOT_FOUND;
import static dev.dht.node.cluster.Reply.ok;
import static dev.dht.node.cluster.TestData.randomId;
import static dev.dht.node.cluster.TestData.randomValue;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes a replica misses while it is down, of every kind: keys it never saw, keys it holds an older value of
 * (overwritten) and keys it holds a value of that were deleted. The older values are written at full RF while
 * every node is up, so a replica that did not catch up answers differently for every key, deletes included.
 */
final class MissedWrites {
    private final List<String> created = new ArrayList<>();
    private final List<String> overwritten = new ArrayList<>();
    private final List<String> deleted = new ArrayList<>();
    private final Map<String, Reply> before = new LinkedHashMap<>();
    private final Map<String, Reply> after = new LinkedHashMap<>();

    private MissedWrites() {}

    /** Writes the values to be overwritten and deleted later, at full RF while every node is up. */
    static MissedWrites prepare(ProcessCluster c, int perKind) {
        MissedWrites w = new MissedWrites();
        int n = c.size();
        for (int k = 0; k < perKind; k++) {
            w.created.add(randomId());
            w.overwritten.add(randomId());
            w.deleted.add(randomId());
        }
        for (String id : w.created) {
            w.before.put(id, NOT_FOUND);
        }
        int k = 0;
        for (String id : concat(w.overwritten, w.deleted)) {
            byte[] value = randomValue();
            assertThat(c.node(k++ % n).put(id, value, n, n))
                    .as("full-RF write of %s", id)
                    .isEqualTo(CREATED);
            w.before.put(id, ok(value));
        }
        return w;
    }

    /** With a replica down: every id created, overwritten or deleted at quorum, through these nodes in turn. */
    void writeThrough(ProcessCluster c, int... via) {
        int ack = c.size() / 2 + 1;
        int from = c.size();
        int k = 0;
        for (String id : concat(created, overwritten)) {
            byte[] value = randomValue();
            assertThat(c.node(via[k++ % via.length]).put(id, value, ack, from))
                    .as("PUT %s", id)
                    .isEqualTo(CREATED);
            after.put(id, ok(value));
        }
        for (String id : deleted) {
            assertThat(c.node(via[k++ % via.length]).delete(id, ack, from))
                    .as("DELETE %s", id)
                    .isEqualTo(ACCEPTED);
            after.put(id, NOT_FOUND);
        }
    }

    Set<String> ids() {
        return before.keySet();
    }

    int size() {
        return before.size();
    }

    /** What the replica holds if it missed every write. */
    Map<String, Reply> before() {
        return before;
    }

    /** The newest state of every key. */
    Map<String, Reply> after() {
        return after;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
