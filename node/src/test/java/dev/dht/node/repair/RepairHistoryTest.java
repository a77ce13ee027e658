package dev.dht.node.repair;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StorageOptions;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The purge horizon that gates the tombstone sweeper (docs/cluster.md, "Tombstone purge"), on a real store: nothing
 * is purgeable on an arc never repaired, however old; once repaired, only tombstones older than both the grace and
 * the repair minus the propagation delay; a repair under another member set counts for nothing; the history
 * survives a restart; an arc no other member replicates needs the grace alone.
 */
class RepairHistoryTest {
    private static final long GRACE = 60_000;
    private static final long PROPAGATION = 5_000;
    private static final long NOW = 1_800_000_000_000L; // wall ms
    private static final List<String> THREE =
            List.of("http://127.0.0.1:9001", "http://127.0.0.1:9002", "http://127.0.0.1:9003");

    @TempDir
    Path dir;

    private static long hlc(long wallMillis) {
        return wallMillis << 16;
    }

    private static RocksStore open(Path dir) {
        return RocksStore.open(dir, StorageOptions.node(4 << 20, 8 << 20));
    }

    @Test
    void aNeverRepairedArcPurgesNothingAndARepairedOneOnlyWhatEveryReplicaHeldThen() {
        RepairRanges ranges = new RepairRanges(THREE.get(0), ClusterMembers.of(THREE), 3);
        int arc = ranges.arcs().get(0).index();
        int other = ranges.arcs().get(1).index();
        try (RocksStore store = open(dir)) {
            RepairHistory h = new RepairHistory(store.sideTable(RocksStore.REPAIR), GRACE, PROPAGATION);
            h.use(ranges);
            assertThat(h.horizon(arc, NOW))
                    .as("never repaired: no tombstone may go")
                    .isEqualTo(Long.MIN_VALUE);
            assertThat(h.oldest()).isZero();

            long repairedAt = hlc(NOW - 10_000);
            h.repaired(ranges.ringId() + "-another-set", List.of(arc), repairedAt);
            assertThat(h.horizon(arc, NOW))
                    .as("a repair under another member set")
                    .isEqualTo(Long.MIN_VALUE);

            h.repaired(ranges.ringId(), List.of(arc), repairedAt);
            long horizon = h.horizon(arc, NOW);
            // older than the grace, but written after the repair minus the propagation delay: may have been on
            // its way to a replica when the repair compared them, so it stays
            long lateTombstone = hlc(NOW - 10_000 - PROPAGATION + 1);
            assertThat(lateTombstone).isLessThan(hlc(NOW - GRACE + 100_000));
            assertThat(lateTombstone < horizon).isFalse();
            // written well before the repair, and older than the grace: every replica held it, it may go
            assertThat(hlc(NOW - GRACE - 1) < horizon).isTrue();
            // repaired long after, but younger than the grace: stays
            assertThat(hlc(NOW - GRACE + 1) < horizon).isFalse();
            assertThat(h.horizon(other, NOW))
                    .as("the other arcs stay unrepaired")
                    .isEqualTo(Long.MIN_VALUE);

            // an earlier repair never moves the horizon back
            h.repaired(ranges.ringId(), List.of(arc), hlc(NOW - 50_000));
            assertThat(h.horizon(arc, NOW)).isEqualTo(horizon);
        }
        try (RocksStore store = open(dir)) {
            RepairHistory h = new RepairHistory(store.sideTable(RocksStore.REPAIR), GRACE, PROPAGATION);
            h.use(new RepairRanges(THREE.get(0), ClusterMembers.of(THREE), 3));
            assertThat(h.repairedAt(arc)).as("persisted across a restart").isEqualTo(hlc(NOW - 10_000));

            // a new member set: its arcs differ, nothing counts as repaired until a round on it succeeds
            List<String> four = List.of(THREE.get(0), THREE.get(1), THREE.get(2), "http://127.0.0.1:9004");
            RepairRanges moved = new RepairRanges(THREE.get(0), ClusterMembers.of(four), 3);
            h.use(moved);
            for (RepairRanges.Arc a : moved.arcs()) {
                assertThat(h.horizon(a.index(), NOW)).isEqualTo(Long.MIN_VALUE);
            }
        }
    }

    @Test
    void anArcNoOtherMemberReplicatesNeedsTheGraceAlone() {
        List<String> one = List.of("http://127.0.0.1:9001");
        RepairRanges ranges = new RepairRanges(one.get(0), ClusterMembers.of(one), 3);
        try (RocksStore store = open(dir)) {
            RepairHistory h = new RepairHistory(store.sideTable(RocksStore.REPAIR), GRACE, PROPAGATION);
            h.use(ranges);
            int arc = ranges.arcs().get(0).index();
            assertThat(h.horizon(arc, NOW)).isEqualTo(hlc(NOW - GRACE));
            assertThat(h.oldest()).as("nothing to repair").isEqualTo(Long.MAX_VALUE);
        }
    }
}
