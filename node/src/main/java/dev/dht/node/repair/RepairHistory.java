package dev.dht.node.repair;

import dev.dht.node.storage.SideTable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * When each arc this node replicates was last repaired successfully, persisted in the store's repair family, for
 * the current stable member set only (arcs change with the members: after a move nothing counts as repaired until
 * a round on the new set succeeds). It decides which tombstones may be purged (docs/cluster.md, "Tombstone purge"):
 * one older than the grace, and written before the arc's last successful repair by more than the propagation
 * delay (the longest a write can take to reach a replica: a hint's age), so that every replica of the arc held it
 * when that repair compared them.
 *
 * <p>Times are hybrid-logical-clock timestamps (48 bits of milliseconds, 16 of counter), like record timestamps.
 */
final class RepairHistory {
    static final byte[] ARC_PREFIX = "arc/".getBytes(StandardCharsets.UTF_8);

    private final SideTable table;
    private final long graceMillis;
    private final long propagationMillis;
    private volatile State state;

    /** The repaired times of one set of ranges. */
    private record State(RepairRanges ranges, AtomicLongArray repairedAt) {}

    RepairHistory(SideTable table, long graceMillis, long propagationMillis) {
        this.table = table;
        this.graceMillis = graceMillis;
        this.propagationMillis = propagationMillis;
    }

    /** Switches to a new set of ranges (a new stable member set), loading what was persisted for it. */
    synchronized void use(RepairRanges ranges) {
        State s = state;
        if (s != null && s.ranges() == ranges) {
            return;
        }
        AtomicLongArray at = new AtomicLongArray(ranges.ring().arcCount());
        byte[] prefix = prefix(ranges.ringId());
        table.scan(prefix, (key, value) -> {
            if (key.length == prefix.length + 4 && value.length == 8) {
                int arc = ByteBuffer.wrap(key, prefix.length, 4).getInt();
                if (arc >= 0 && arc < at.length()) {
                    at.set(arc, ByteBuffer.wrap(value).getLong());
                }
            }
            return true;
        });
        state = new State(ranges, at);
        forgetOtherSets(ranges.ringId());
    }

    RepairRanges ranges() {
        State s = state;
        return s == null ? null : s.ranges();
    }

    /** Records a successful repair of these arcs (of the given ranges) at repairedAt. */
    void repaired(String ringId, List<Integer> arcs, long repairedAt) {
        State s = state;
        if (s == null || !s.ranges().ringId().equals(ringId)) {
            return; // repaired under another member set: it says nothing about the current arcs
        }
        for (int a : arcs) {
            if (a < 0 || a >= s.repairedAt().length()) {
                continue;
            }
            long before;
            do {
                before = s.repairedAt().get(a);
            } while (repairedAt > before && !s.repairedAt().compareAndSet(a, before, repairedAt));
            if (repairedAt > before) {
                table.put(
                        arcKey(ringId, a),
                        ByteBuffer.allocate(8).putLong(repairedAt).array());
            }
        }
    }

    /** When the arc was last repaired (0: never, or not one of this node's arcs). */
    long repairedAt(int arc) {
        State s = state;
        return s == null || arc < 0 || arc >= s.repairedAt().length()
                ? 0
                : s.repairedAt().get(arc);
    }

    /**
     * The purge horizon of an arc at wall time now: tombstones with an older timestamp may be purged, and compare
     * as absent. {@link Long#MIN_VALUE} (nothing) while the arc was never repaired; the grace alone for an arc no
     * other member replicates.
     */
    long horizon(int arc, long wallNow) {
        long grace = (wallNow - graceMillis) << 16;
        State s = state;
        if (s == null) {
            return Long.MIN_VALUE;
        }
        RepairRanges.Arc mine = s.ranges().arc(arc);
        if (mine == null) {
            return Long.MIN_VALUE;
        }
        if (mine.replicas().size() == 1) {
            return grace;
        }
        long at = s.repairedAt().get(arc);
        if (at == 0) {
            return Long.MIN_VALUE;
        }
        return Math.min(grace, at - (propagationMillis << 16));
    }

    /**
     * The oldest repair time over this node's arcs that other members replicate too (0 if one was never
     * repaired; {@link Long#MAX_VALUE} when there is none: nothing to repair), for the status.
     */
    long oldest() {
        State s = state;
        if (s == null) {
            return 0;
        }
        long oldest = Long.MAX_VALUE;
        for (RepairRanges.Arc a : s.ranges().arcs()) {
            if (a.replicas().size() > 1) {
                oldest = Math.min(oldest, s.repairedAt().get(a.index()));
            }
        }
        return oldest;
    }

    long propagationMillis() {
        return propagationMillis;
    }

    long graceMillis() {
        return graceMillis;
    }

    private static byte[] prefix(String ringId) {
        return (new String(ARC_PREFIX, StandardCharsets.UTF_8) + ringId + "/").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] arcKey(String ringId, int arc) {
        byte[] p = prefix(ringId);
        return ByteBuffer.allocate(p.length + 4).put(p).putInt(arc).array();
    }

    /** Entries of earlier member sets are dead weight: drop them. */
    private void forgetOtherSets(String ringId) {
        byte[] keep = prefix(ringId);
        java.util.List<byte[]> stale = new java.util.ArrayList<>();
        table.scan(ARC_PREFIX, (key, value) -> {
            if (!java.util.Arrays.equals(key, 0, Math.min(key.length, keep.length), keep, 0, keep.length)
                    || key.length < keep.length) {
                stale.add(key);
            }
            return true;
        });
        stale.forEach(table::delete);
    }
}
