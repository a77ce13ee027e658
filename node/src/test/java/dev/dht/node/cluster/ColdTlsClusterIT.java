package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.support.TestCertificates;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new three-member cluster with member TLS, every member started at once and written to (quorum 2/3, from many
 * clients) as soon as it is ready, with the default request timeout of 1 s: as in Kubernetes, where this showed
 * as 'SSLProtocolException: Unexpected exception' on the members and 504s for the clients. The first member
 * connections all open under that load, on cold JVMs. No member may report a failed handshake: none fails here,
 * so one reported is a handshake that a member gave up on (and started over on a new connection).
 */
class ColdTlsClusterIT {
    private static final int NODES = 3;
    private static final int CLIENTS = 48;
    private static final int WRITES_PER_CLIENT = 30;

    @TempDir
    Path dir;

    @Test
    void aColdTlsClusterWrittenToAtOnceGivesUpNoHandshake() throws Exception {
        TestCertificates ca = TestCertificates.authority("cluster-ca");
        List<TestCertificates.Member> files = ca.issueMembers(dir, NODES);
        try (ProcessCluster c =
                ProcessCluster.start(dir, NODES, i -> files.get(i).args())) {
            Map<Integer, Integer> statuses = new TreeMap<>();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            try {
                List<Future<List<Integer>>> results = new ArrayList<>();
                for (int t = 0; t < CLIENTS; t++) {
                    int client = t;
                    results.add(clients.submit(() -> {
                        List<Integer> mine = new ArrayList<>();
                        for (int k = 0; k < WRITES_PER_CLIENT; k++) {
                            mine.add(c.node((client + k) % NODES)
                                    .put("c" + client + "-" + k, new byte[100], 2, 3)
                                    .status());
                        }
                        return mine;
                    }));
                }
                for (Future<List<Integer>> r : results) {
                    for (int status : r.get(120, TimeUnit.SECONDS)) {
                        statuses.merge(status, 1, Integer::sum);
                    }
                }
            } finally {
                clients.shutdownNow();
            }
            for (int i = 0; i < NODES; i++) {
                assertThat(c.metric(i, "dht_member_tls_handshake_failures_total"))
                        .as("failed handshakes on member %d (answers by status: %s)", i, statuses)
                        .isZero();
            }
        }
    }
}
