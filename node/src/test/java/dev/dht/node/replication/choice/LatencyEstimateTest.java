package dev.dht.node.replication.choice;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The decaying histogram behind the backup delay and the latency ranking. */
class LatencyEstimateTest {
    private static final long MS = 1_000_000L;

    @Test
    void bucketsCoverEveryTimeInOrderAndEachValueLiesBelowItsUpperBound() {
        int previous = 0;
        for (long micros = 0; micros < 5_000_000; micros = micros < 100 ? micros + 1 : micros * 11 / 10) {
            int b = LatencyEstimate.bucket(micros);
            assertThat(b).as("bucket of %d us", micros).isGreaterThanOrEqualTo(previous);
            assertThat(LatencyEstimate.upperNanos(b))
                    .as("upper bound of %d us", micros)
                    .isGreaterThan(micros * 1000);
            if (b > 4) {
                assertThat(LatencyEstimate.upperNanos(b - 1))
                        .as("the bucket below ends at or below %d us", micros)
                        .isLessThanOrEqualTo(micros * 1000);
            }
            previous = b;
        }
    }

    @Test
    void quantilesAreUnknownUntilEnoughAnswersThenWithinABucketOfTheTruth() {
        LatencyEstimate e = new LatencyEstimate();
        long now = 0;
        for (int i = 0; i < LatencyEstimate.MIN_WEIGHT - 1; i++) {
            e.record(MS, now);
        }
        assertThat(e.p99()).as("a handful of answers say nothing about the p99").isEqualTo(-1);
        // 1,000 answers: 98.5% at 1 ms, 1.5% at 40 ms: the median is 1 ms and the p99 40 ms
        e = new LatencyEstimate();
        for (int i = 0; i < 1000; i++) {
            e.record(i % 200 < 3 ? 40 * MS : MS, now);
        }
        assertThat(e.p50()).isBetween(MS, MS * 6 / 5);
        assertThat(e.p99()).isBetween(40 * MS, 48 * MS);
    }

    @Test
    void oldAnswersFadeWithinAFewHalfLives() {
        LatencyEstimate e = new LatencyEstimate();
        long now = 0;
        for (int i = 0; i < 2000; i++) {
            e.record(80 * MS, now); // a bad second
        }
        assertThat(e.p50()).isGreaterThan(80 * MS);
        for (int s = 1; s <= 12; s++) { // then 100 fast answers a second (about 200 in all after decay)
            now = s * LatencyEstimate.HALF_LIFE_NANOS;
            for (int i = 0; i < 100; i++) {
                e.record(MS, now);
            }
        }
        assertThat(e.p50()).as("the median follows the present").isLessThan(2 * MS);
        assertThat(e.p99())
                .as("2000 / 2^12 old answers are under 1% of the weight")
                .isLessThan(2 * MS);
    }

    @Test
    void aLongIdleTimeForgetsEverything() {
        LatencyEstimate e = new LatencyEstimate();
        for (int i = 0; i < 100; i++) {
            e.record(MS, 0);
        }
        e.record(MS, 120 * LatencyEstimate.HALF_LIFE_NANOS);
        assertThat(e.p99()).isEqualTo(-1);
    }
}
