package dev.dht.node.replication;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.support.TestNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Real nodes in this JVM forming one cluster on loopback: every member's port is chosen up front, so a node can
 * be stopped and started again on its port and data directory (the course's stop(i)/start(i)).
 */
final class LocalCluster implements AutoCloseable {
    private final Path dir;
    private final int[] ports;
    private final ClusterMembers members;
    private final UnaryOperator<NodeConfig>[] tweaks;
    private final TestNode[] nodes;

    @SuppressWarnings("unchecked")
    private LocalCluster(Path dir, int size, List<String> extraMembers) {
        this.dir = dir;
        this.ports = new int[size];
        List<String> urls = new ArrayList<>(extraMembers);
        for (int i = 0; i < size; i++) {
            ports[i] = TestNode.freePort();
            urls.add(url(i));
        }
        this.members = ClusterMembers.of(urls);
        this.tweaks = new UnaryOperator[size];
        this.nodes = new TestNode[size];
    }

    /**
     * size nodes, each configured by tweak(i), plus members that are never started here (down or fake). With such
     * members the nodes start on data directories that exist already, as established members whose peers went
     * down: new directories would make them wait for a peer to say whether the cluster is new (dev.dht.node.rebuild).
     */
    static LocalCluster start(Path dir, int size, List<String> extraMembers, IndexedTweak tweak) {
        LocalCluster c = new LocalCluster(dir, size, extraMembers);
        if (!extraMembers.isEmpty()) {
            for (int i = 0; i < size; i++) {
                dev.dht.node.storage.RocksStore.open(
                                dir.resolve("node" + i), dev.dht.node.storage.StorageOptions.node(4 << 20, 8 << 20))
                        .close();
            }
        }
        for (int i = 0; i < size; i++) {
            int n = i;
            c.tweaks[i] = config -> tweak.apply(n, config);
            c.start(i);
        }
        // New members first ask each other whether the cluster is new (not ready meanwhile: dev.dht.node.rebuild)
        for (int i = 0; i < size; i++) {
            TestNode node = c.nodes[i];
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(30))
                    .pollInterval(java.time.Duration.ofMillis(20))
                    .until(() -> node.get("/v0/status").statusCode() == 200);
        }
        return c;
    }

    static LocalCluster start(Path dir, int size) {
        return start(dir, size, List.of(), (i, c) -> c);
    }

    interface IndexedTweak {
        NodeConfig apply(int index, NodeConfig config);
    }

    String url(int i) {
        return "http://localhost:" + ports[i];
    }

    ClusterMembers members() {
        return members;
    }

    void start(int i) {
        NodeConfig config =
                NodeConfig.defaults(ports[i], dir.resolve("node" + i)).withCluster(members, url(i));
        nodes[i] = TestNode.start(tweaks[i].apply(config));
    }

    void stop(int i) {
        nodes[i].close();
        nodes[i] = null;
    }

    TestNode node(int i) {
        return nodes[i];
    }

    int size() {
        return nodes.length;
    }

    /** Index of the node with this URL. */
    int indexOf(String url) {
        for (int i = 0; i < ports.length; i++) {
            if (url(i).equals(url)) {
                return i;
            }
        }
        return -1;
    }

    /** What node i stores locally for the id, asked with an internal GET: 200 (record, tombstones too) or 404. */
    HttpResponse<byte[]> local(int i, String id) {
        return nodes[i].send(HttpRequest.newBuilder(nodes[i].memberUri("/v0/entity?id=" + id))
                .header("X-Dht-Internal", "1")
                .GET());
    }

    @Override
    public void close() {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null) {
                stop(i);
            }
        }
    }
}
