package dev.dht.node.cluster;

import dev.dht.node.support.NodeProcess;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What each node holds by itself, the strong way: the node is restarted alone, on its own data directory and
 * port, as a one-member cluster, and asked GET 1/1, which then reads its local store only. A 200 is a local
 * copy; no other member can answer for it. (The course's respectRF/distribute: stop all, start each alone.)
 */
final class LocalCopies {
    private LocalCopies() {}

    /** Node i's local answer for each id. Stops node i if it runs; leaves it stopped. */
    static Map<String, Reply> readAlone(ProcessCluster cluster, int i, Collection<String> ids) {
        if (cluster.isRunning(i)) {
            cluster.stop(i);
        }
        Map<String, Reply> replies = new LinkedHashMap<>();
        try (NodeProcess alone = cluster.startAlone(i)) {
            EntityClient client = new EntityClient(alone);
            for (String id : ids) {
                replies.put(id, client.get(id, 1, 1));
            }
        }
        return replies;
    }

    /**
     * For each id, the nodes that hold a live copy of it (answered 200 alone), with that copy. Stops every node
     * first and restarts them one at a time, alone (so that no node can hand a hint to another meanwhile, nor
     * answer for another), and leaves them all stopped: {@link ClusterExtension} starts them before the next test.
     */
    static Map<String, Map<Integer, Reply>> copies(ProcessCluster cluster, Collection<String> ids) {
        cluster.stopAll();
        Map<String, Map<Integer, Reply>> copies = new LinkedHashMap<>();
        for (String id : ids) {
            copies.put(id, new TreeMap<>());
        }
        for (int i = 0; i < cluster.size(); i++) {
            for (Map.Entry<String, Reply> e : readAlone(cluster, i, ids).entrySet()) {
                if (e.getValue().status() == 200) {
                    copies.get(e.getKey()).put(i, e.getValue());
                }
            }
        }
        return copies;
    }
}
