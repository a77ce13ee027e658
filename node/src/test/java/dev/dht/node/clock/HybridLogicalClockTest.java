package dev.dht.node.clock;

import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

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
        IntStream.range(0, 40_000).parallel().forEach(i -> assertThat(seen.add(clock.now())).isTrue());
        assertThat(seen).hasSize(40_000);
    }

    @Test
    void layoutIs48BitsOfMillisAnd16OfCounter() {
        long ts = HybridLogicalClock.of(1_700_000_000_000L, 65_535);
        assertThat(HybridLogicalClock.physicalMillis(ts)).isEqualTo(1_700_000_000_000L);
        assertThat(HybridLogicalClock.logical(ts)).isEqualTo(65_535);
        assertThat(HybridLogicalClock.format(ts)).isEqualTo("1700000000000.65535");
    }
}
