package dev.dht.node.replication.choice;

import dev.dht.node.metrics.NodeMetrics;
import java.util.List;

/** The replica choice's metrics, one series per peer called so far (docs/cluster.md, "Metrics"). */
public final class ChoiceMetrics {
    public static final String STATE = "dht_replica_state";
    public static final String LATENCY = "dht_replica_read_latency_seconds";
    public static final String BACKUP_DELAY = "dht_replica_backup_delay_seconds";
    public static final String READS = "dht_replica_reads";
    public static final String PROBES = "dht_replica_probes";
    public static final String BACKUPS = "dht_replica_backups";
    public static final String BACKUPS_SENT = "dht_read_backups_sent";
    public static final String BACKUPS_WON = "dht_read_backups_won";

    private ChoiceMetrics() {}

    public static void register(NodeMetrics metrics, ReplicaChoice choice) {
        metrics.labelledGauges(
                STATE,
                "1 for the peer's current state (responsive, slow, avoided), 0 for the others",
                List.of("peer", "state"),
                out -> {
                    long now = System.nanoTime();
                    for (PeerHealth p : choice.peers()) {
                        PeerState current = p.state(now);
                        for (PeerState s : PeerState.values()) {
                            out.sample(s == current ? 1 : 0, p.url(), s.label());
                        }
                    }
                });
        metrics.labelledGauges(
                LATENCY,
                "The peer's recent replica-read answer time (decaying estimate; absent until " + "enough answers)",
                List.of("peer", "quantile"),
                out -> {
                    for (PeerHealth p : choice.peers()) {
                        if (p.medianNanos() >= 0) {
                            out.sample(p.medianNanos() / 1e9, p.url(), "0.5");
                            out.sample(p.p99Nanos() / 1e9, p.url(), "0.99");
                        }
                    }
                });
        metrics.labelledGauges(
                BACKUP_DELAY,
                "How long a quorum read waits for the peer before it asks the other " + "replicas too",
                List.of("peer"),
                out -> {
                    for (PeerHealth p : choice.peers()) {
                        out.sample(p.backupDelayNanos() / 1e9, p.url());
                    }
                });
        metrics.labelledCounters(
                READS,
                "Replica reads sent to the peer (probes included)",
                List.of("peer"),
                out -> choice.peers().forEach(p -> out.sample(p.readCalls(), p.url())));
        metrics.labelledCounters(
                PROBES,
                "Reads that also asked the peer, avoided or slow, to see whether it answers " + "again",
                List.of("peer"),
                out -> choice.peers().forEach(p -> out.sample(p.probes(), p.url())));
        metrics.labelledCounters(
                BACKUPS,
                "Quorum reads that stopped waiting for the peer and asked the other " + "replicas",
                List.of("peer"),
                out -> choice.peers().forEach(p -> out.sample(p.backups(), p.url())));
        metrics.counter(
                BACKUPS_SENT,
                "Quorum reads that asked more replicas because one asked was slow to answer",
                choice::backupsSent);
        metrics.counter(BACKUPS_WON, "Quorum reads completed by a replica asked as a backup", choice::backupsWon);
    }
}
