package dev.dht.node.cluster;

import static dev.dht.node.cluster.Reply.ACCEPTED;
import static dev.dht.node.cluster.Reply.CREATED;
import static dev.dht.node.cluster.Reply.NOT_FOUND;
import static dev.dht.node.cluster.Reply.ok;
import static dev.dht.node.cluster.TestData.randomId;
import static dev.dht.node.cluster.TestData.randomValue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two writes a client issues one after the other (the second once the first is answered), through different
 * nodes, resolve in that order every time. The course's overlapRead/overlapWrite/missedOverwrite do this once per
 * run; here the pair is a PUT 1/2 and then a PUT or DELETE 2/2 through the other node, which overlap (1 + 2 > 2),
 * so GET 2/2 must return the second write, right after it and for good.
 *
 * <p>Repeated many times because what could reorder them is a race: the first write's copy for the other node
 * is still in flight when the second write reaches that node. That copy then arrives older than what the node
 * holds; it must lose there, and must not make the first write's coordinator write it again, newer.
 */
class WriteOrderIT {
    private static final int PAIRS = 1500;

    @TempDir
    static Path dir;

    @RegisterExtension
    static final ClusterExtension cluster = new ClusterExtension(2, () -> dir);

    @Test
    void anOverwriteAcknowledgedAfterAQuickPutWins(ProcessCluster c) {
        Map<String, Reply> expected = new LinkedHashMap<>();
        List<String> wrong = new ArrayList<>();
        for (int pair = 0; pair < PAIRS; pair++) {
            String id = randomId();
            int first = pair % 2;
            byte[] second = randomValue();
            assertThat(c.node(first).put(id, randomValue(), 1, 2)).isEqualTo(CREATED);
            assertThat(c.node(1 - first).put(id, second, 2, 2)).isEqualTo(CREATED);
            expected.put(id, ok(second));
            checkRightAfter(c, first, id, ok(second), wrong);
        }
        assertSoftly(soft -> {
            soft.assertThat(wrong).as("read right after the second write").isEmpty();
            soft.assertThat(readAll(c, expected))
                    .as("read once every pair was written")
                    .isEqualTo(expected);
        });
    }

    @Test
    void aDeleteAcknowledgedAfterAQuickPutWins(ProcessCluster c) {
        Map<String, Reply> expected = new LinkedHashMap<>();
        List<String> wrong = new ArrayList<>();
        for (int pair = 0; pair < PAIRS; pair++) {
            String id = randomId();
            int first = pair % 2;
            assertThat(c.node(first).put(id, randomValue(), 1, 2)).isEqualTo(CREATED);
            assertThat(c.node(1 - first).delete(id, 2, 2)).isEqualTo(ACCEPTED);
            expected.put(id, NOT_FOUND);
            checkRightAfter(c, first, id, NOT_FOUND, wrong);
        }
        assertSoftly(soft -> {
            soft.assertThat(wrong).as("read right after the delete").isEmpty();
            soft.assertThat(readAll(c, expected))
                    .as("read once every pair was written")
                    .isEqualTo(expected);
        });
    }

    private static void checkRightAfter(ProcessCluster c, int via, String id, Reply expected, List<String> wrong) {
        Reply reply = c.node(via).get(id, 2, 2);
        if (!reply.equals(expected)) {
            wrong.add(id + ": " + reply);
        }
    }

    private static Map<String, Reply> readAll(ProcessCluster c, Map<String, Reply> ids) {
        Map<String, Reply> replies = new LinkedHashMap<>();
        int k = 0;
        for (String id : ids.keySet()) {
            replies.put(id, c.node(k++ % 2).get(id, 2, 2));
        }
        return replies;
    }
}
