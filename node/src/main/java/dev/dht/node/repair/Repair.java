package dev.dht.node.repair;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.io.Throttle;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.replication.ReadGate;
import dev.dht.node.replication.TombstoneSweeper;
import dev.dht.node.ring.XxHash64;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.SideTable;
import dev.dht.node.storage.Store;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Anti-entropy repair on one node (docs/cluster.md, "Repair"): its endpoints, the rounds it coordinates, the
 * history of repaired ranges, and what follows from that history: which tombstones may be purged. {@code Node}
 * builds one and wires it; everything else of the package stays inside it.
 */
public final class Repair implements AutoCloseable {
    private final CurrentRanges current;
    private final RepairHistory history;
    private final RepairStats stats = new RepairStats();
    private final RepairService service;
    private final RepairEndpoints endpoints;
    private final RangePull pull;
    /** The scans of the rounds this node coordinates, and those coordinators ask of it: each on a SCHED_IDLE thread. */
    private final BackgroundScans ownScans = new BackgroundScans("dht-repair-scan", 1, null);

    private final BackgroundScans peerScans = new BackgroundScans("dht-repair-peer", 8, "dht-repair-ans");

    /**
     * @param table   the store's repair family
     * @param rebuild the rebuild's part of the status (null-free map)
     */
    public Repair(
            Store store,
            SideTable table,
            CurrentRanges current,
            PeerClient client,
            HybridLogicalClock clock,
            LongSupplier wall,
            RepairSettings settings,
            ReadGate gate,
            Supplier<Map<String, Object>> rebuild) {
        this.current = current;
        this.history = new RepairHistory(
                table, settings.grace().toMillis(), settings.propagation().toMillis());
        RepairPeers peers = new RepairPeers(
                client, clock, current::requestHeader, settings.callTimeout(), new Throttle(settings.rate()), stats);
        this.service = new RepairService(
                store, current, history, new RoundLog(table), peers, stats, settings, clock, wall, gate, ownScans);
        this.endpoints =
                new RepairEndpoints(store, clock, current, history, stats, service, settings, gate, rebuild, peerScans);
        // a rebuild pulls at its own pace (the same rate), not sharing the coordinator's budget
        this.pull = new RangePull(
                store,
                current,
                new RepairPeers(
                        client,
                        clock,
                        current::requestHeader,
                        settings.callTimeout(),
                        new Throttle(settings.rate()),
                        stats),
                stats,
                clock);
    }

    public void start() {
        service.start();
    }

    public Map<String, AdminHandler> handlers() {
        return endpoints.handlers();
    }

    /** For the rebuild. */
    public RangePull pull() {
        return pull;
    }

    /**
     * The tombstone sweeper's gate: a tombstone may go only when older than its arc's purge horizon (grace, and a
     * successful repair of every replica after it was written). Nothing goes while a move runs or before the node
     * knows its topology.
     */
    public TombstoneSweeper.Gate purgeGate() {
        return (byte[] key, Record tombstone, long wallNow) -> {
            RepairRanges r = current.get();
            if (r == null) {
                return false;
            }
            history.use(r);
            return tombstone.timestamp() < history.horizon(r.arcOf(XxHash64.hash(key)), wallNow);
        };
    }

    /** Wall ms of the oldest repair among this node's ranges (0 when one was never repaired; now: none to repair). */
    public long oldestRangeRepairMillis() {
        long t = history.oldest();
        return t == 0 ? 0 : t == Long.MAX_VALUE ? System.currentTimeMillis() : HybridLogicalClock.physicalMillis(t);
    }

    public long rangesCompared() {
        return stats.rangesCompared.sum();
    }

    public long rangesOutOfSync() {
        return stats.rangesOutOfSync.sum();
    }

    public long keysRepaired() {
        return stats.keysRepaired.sum();
    }

    public long bytesRepaired() {
        return stats.bytesRepaired.sum();
    }

    public long hashBytes() {
        return stats.hashBytes.sum();
    }

    public long keysReceived() {
        return stats.keysReceived.sum();
    }

    public long roundsCompleted() {
        return stats.roundsCompleted.sum();
    }

    public long roundsFailed() {
        return stats.roundsFailed.sum();
    }

    public long lastRoundMillis() {
        return stats.lastRoundAt;
    }

    public boolean running() {
        return stats.running != null;
    }

    @Override
    public void close() {
        service.close();
        ownScans.close();
        peerScans.close();
    }
}
