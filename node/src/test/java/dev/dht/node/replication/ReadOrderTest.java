package dev.dht.node.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The order a quorum read asks replicas in: its own copy first, then the others from a key-chosen one on. */
class ReadOrderTest {
    @Test
    void theOwnSlotComesFirstAndEverySlotOnce() {
        for (int self = -1; self < 4; self++) {
            for (long hash = 0; hash < 50; hash++) {
                int[] order = ReadOperation.askOrder(4, self, hash * 0x9E3779B97F4A7C15L);
                if (self >= 0) {
                    assertThat(order[0]).isEqualTo(self);
                }
                assertThat(Arrays.stream(order).sorted().toArray()).containsExactly(0, 1, 2, 3);
            }
        }
    }

    @Test
    void theOtherReplicaAskedFirstDependsOnTheKeySoReadsSpreadOverThem() {
        int[] firstOther = new int[3];
        for (long hash = 0; hash < 3000; hash++) {
            firstOther[ReadOperation.askOrder(3, 1, hash * 0x9E3779B97F4A7C15L)[1]]++;
        }
        assertThat(firstOther[1]).as("never the own slot").isZero();
        assertThat(firstOther[0]).isBetween(1200, 1800);
        assertThat(firstOther[2]).isBetween(1200, 1800);
    }
}
