package dev.dht.node.repair;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.config.ClusterMembers;
import org.junit.jupiter.api.Test;

/** Repair (and a rebuild's pulls) compare the replicas of each arc as placement puts them: by rack when racked. */
class RepairRangesTest {
    @Test
    void withRacksEveryArcsReplicaSetSpansTheRacksAndIsAnotherRing() {
        ClusterMembers racked = ClusterMembers.parseList(
                "a=http://n0:1,a=http://n1:1,b=http://n2:1,b=http://n3:1," + "c=http://n4:1,c=http://n5:1");
        ClusterMembers plain = ClusterMembers.of(racked.urls());
        RepairRanges ranges = new RepairRanges("http://n0:1", racked, 3);
        assertThat(ranges.arcs()).isNotEmpty();
        for (RepairRanges.Arc arc : ranges.arcs()) {
            assertThat(arc.replicas().stream().map(racked::rackOf).distinct())
                    .as("%s", arc.replicas())
                    .hasSize(3);
        }
        RepairRanges blind = new RepairRanges("http://n0:1", plain, 3);
        assertThat(ranges.ringId())
                .as("repairs under one layout count nothing for the other")
                .isNotEqualTo(blind.ringId());
        assertThat(blind.arcs().stream()
                        .anyMatch(arc -> arc.replicas().stream()
                                        .map(racked::rackOf)
                                        .distinct()
                                        .count()
                                < 3))
                .as("rack-blind sets put two replicas in one rack somewhere")
                .isTrue();
    }
}
