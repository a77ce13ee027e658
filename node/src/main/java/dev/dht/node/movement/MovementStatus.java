package dev.dht.node.movement;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.storage.Store;
import dev.dht.node.topology.StateFile;
import dev.dht.node.topology.TopologyId;
import dev.dht.node.topology.TopologyManager;
import dev.dht.node.topology.TopologyState;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * This node's movement as the operator and the metrics see it: {@code GET /v0/admin/movement} (the contract in
 * docs/cluster.md, "Endpoints") and the dht_movement_* gauges. "left" figures are estimates: the records this
 * node still has to scan (RocksDB's key estimate at the start of its scan, less what it scanned), an upper bound
 * on what it still has to send; bytes in proportion.
 */
public final class MovementStatus {
    private final TopologyManager manager;
    private final MovementStats stats;
    private final Store store;
    private final MovementLoop loop;

    /** @param loop null on a node with a fixed member list (it never moves) */
    public MovementStatus(TopologyManager manager, MovementStats stats, Store store, MovementLoop loop) {
        this.manager = manager;
        this.stats = stats;
        this.store = store;
        this.loop = loop;
    }

    /** Idle: a stable state (nothing left to send or receive for it). */
    public boolean idle() {
        TopologyState s = manager.state();
        return s != null && !s.moving();
    }

    /** Whether this node still has records to send in the current move. */
    private boolean sending(StateFile f) {
        return f != null && f.state().moving() && f.state().stable().contains(manager.self()) && !f.sent();
    }

    public long recordsLeft() {
        StateFile f = manager.progress();
        if (!sending(f)) {
            return 0;
        }
        return stats.scanEstimatedRecords > 0 || stats.scanned > 0
                ? stats.recordsLeft()
                : Math.max(0, store.stats().estimatedKeys());
    }

    public long bytesLeft() {
        StateFile f = manager.progress();
        if (!sending(f)) {
            return 0;
        }
        if (stats.scanEstimatedRecords > 0 || stats.scanned > 0) {
            return stats.bytesLeft();
        }
        var st = store.stats();
        return Math.max(0, st.liveSstBytes()) + Math.max(0, st.memtableBytes());
    }

    /** Slices of the local scan still to send: at least 1 while sending. */
    public long rangesLeft() {
        StateFile f = manager.progress();
        if (!sending(f)) {
            return 0;
        }
        return Math.max(1, (recordsLeft() + Streamer.SLICE_RECORDS - 1) / Streamer.SLICE_RECORDS);
    }

    public boolean cleanupPending() {
        StateFile f = manager.progress();
        return f != null && f.cleanupPending() || loop != null && loop.cleanupRequested();
    }

    public Map<String, Object> toJson() {
        StateFile f = manager.progress();
        TopologyState s = f == null ? null : f.state();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", idle() ? "idle" : "moving");
        Map<String, Object> topology = new LinkedHashMap<>();
        if (s == null) {
            m.put("member", false);
            topology.put("epoch", 0L);
            topology.put("id", "");
            topology.put("phase", "joint");
            topology.put("stage", "starting");
            topology.put("members", java.util.List.of());
            topology.put("racks", Map.of());
            topology.put("previous", null);
        } else {
            ClusterMembers in = s.destination();
            m.put("member", in.contains(manager.self()));
            topology.put("epoch", s.epoch());
            topology.put("id", TopologyId.of(in));
            topology.put("phase", s.moving() ? "joint" : "stable");
            topology.put("stage", s.stage().jsonName());
            topology.put("members", in.urls());
            topology.put("racks", in.racks()); // member -> rack; {} without racks
            topology.put("previous", s.moving() ? s.stable().urls() : null);
            topology.put("version", s.version());
            topology.put("proposer", MovementLoop.proposer(s));
        }
        m.put("topology", topology);
        m.put("ranges", Map.of("done", stats.slicesDone(), "left", rangesLeft()));
        Map<String, Object> keys = new LinkedHashMap<>();
        keys.put("sent", stats.moveRecordsSent());
        keys.put("received", stats.moveRecordsReceived());
        keys.put("left", recordsLeft());
        m.put("keys", keys);
        Map<String, Object> bytes = new LinkedHashMap<>();
        bytes.put("sent", stats.moveBytesSent());
        bytes.put("received", stats.moveBytesReceived());
        bytes.put("left", bytesLeft());
        m.put("bytes", bytes);
        Map<String, Object> cleanup = new LinkedHashMap<>();
        cleanup.put("pending", cleanupPending());
        cleanup.put("running", stats.cleanupRunning());
        cleanup.put("dropped", stats.cleanupDropped());
        m.put("cleanup", cleanup);
        m.put("sent", f != null && f.sent());
        m.put("waitingFor", stats.waitingFor());
        return m;
    }
}
