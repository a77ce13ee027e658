package dev.dht.node.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HybridLogicalClockTest {

    @Test
    void followsTheWallClockWhenItMoves() {
        AtomicLong wall = new AtomicLong(1_000);
        HybridLogicalClock clock = new HybridLogicalClock(wall::get);
        long a = clock.now();
        assertThat(HybridLogicalClock.physicalMillis(a)).isEqualTo(1_000);
        assertThat(HybridLogicalClock.logical(a)).isZero();
        wall.set(1_005);
        long b = clock.now();
        assertThat(HybridLogicalClock.physicalMillis(b)).isEqualTo(1_005);
        assertThat(HybridLogicalClock.logical(b)).isZero();
    }

    @Test
    void countsLogicallyWithinAMillisecondAndWhenTheWallClockStepsBack() {
        AtomicLong wall = new AtomicLong(2_000);
        HybridLogicalClock clock = new HybridLogicalClock(wall::get);
        long a = clock.now();
        long b = clock.now();
        wall.set(1_000); // NTP stepped back
        long c = clock.now();
        assertThat(b).isGreaterThan(a);
        assertThat(c).isGreaterThan(b);
        assertThat(HybridLogicalClock.physicalMillis(c)).isEqualTo(2_000);
        assertThat(HybridLogicalClock.logical(c)).isEqualTo(2);
    }

    @Test
    void observedTimestampsFromAheadClocksOrderLaterLocalEvents() {
        AtomicLong wall = new AtomicLong(1_000);
        HybridLogicalClock clock = new HybridLogicalClock(wall::get);
        long remote = HybridLogicalClock.of(5_000, 7); // another node's clock runs 4 s ahead
        clock.observe(remote);
        long next = clock.now();
        assertThat(next).isGreaterThan(remote);
        assertThat(HybridLogicalClock.physicalMillis(next)).isEqualTo(5_000);
        clock.observe(HybridLogicalClock.of(10, 0)); // an old timestamp changes nothing
        assertThat(clock.now()).isEqualTo(next + 1);
    }

    @Test
    void concurrentCallersNeverGetTheSameTimestamp() {
        HybridLogicalClock clock = new HybridLogicalClock(() -> 42);
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        IntStream.range(0, 40_000)
                .parallel()
                .forEach(i -> assertThat(seen.add(clock.now())).isTrue());
        assertThat(seen).hasSize(40_000);
    }

    @Test
    void layoutIs48BitsOfMillisAnd16OfCounter() {
        long ts = HybridLogicalClock.of(1_700_000_000_000L, 65_535);
        assertThat(HybridLogicalClock.physicalMillis(ts)).isEqualTo(1_700_000_000_000L);
        assertThat(HybridLogicalClock.logical(ts)).isEqualTo(65_535);
        assertThat(HybridLogicalClock.format(ts)).isEqualTo("1700000000000.65535");
    }

    @Test
    void readingsFurtherAheadThanTheBoundAreRefusedNeverMerged() {
        AtomicLong wall = new AtomicLong(1_000_000);
        HybridLogicalClock clock = new HybridLogicalClock(wall::get, java.time.Duration.ofSeconds(30));
        long before = clock.now();
        assertThat(clock.observe(HybridLogicalClock.of(1_000_000 + 30_000, 0)))
                .as("at the bound")
                .isTrue();
        assertThat(clock.observe(HybridLogicalClock.of(1_000_000 + 30_001, 0)))
                .as("past it")
                .isFalse();
        assertThat(clock.observe(Long.MAX_VALUE - 1)).isFalse();
        assertThat(clock.admit(-5)).as("not a timestamp").isFalse();
        assertThat(clock.refused()).isEqualTo(3);
        assertThat(HybridLogicalClock.physicalMillis(clock.now())).isEqualTo(1_000_000 + 30_000);
        assertThat(before).isLessThan(HybridLogicalClock.of(1_000_001, 0));
        // the bound moves with the wall clock
        wall.addAndGet(60_000);
        assertThat(clock.observe(HybridLogicalClock.of(1_000_000 + 90_000, 0))).isTrue();
    }

    @Test
    void theClockNeverWraps() {
        long lastMillis = Long.MAX_VALUE >>> HybridLogicalClock.LOGICAL_BITS; // the last representable millisecond
        HybridLogicalClock clock = new HybridLogicalClock(() -> lastMillis);
        long previous = clock.now();
        int issued = 1;
        try {
            while (true) {
                long next = clock.now();
                assertThat(next).isGreaterThan(previous);
                previous = next;
                issued++;
            }
        } catch (IllegalStateException end) {
            assertThat(end).hasMessageContaining("last value");
        }
        assertThat(previous).isEqualTo(Long.MAX_VALUE);
        assertThat(issued).isEqualTo(1 << HybridLogicalClock.LOGICAL_BITS);
        assertThatThrownBy(clock::now).isInstanceOf(IllegalStateException.class);
    }
}
