package dev.dht.node.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ThrottleTest {
    @Test
    void takersTogetherStayWithinTheRateAfterATenthOfASecondsBurst() throws Exception {
        var throttle = new Throttle(4L << 20);
        long start = System.nanoTime();
        Thread other = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 8; i++) {
                throttle.pace(64 << 10);
            }
        });
        for (int i = 0; i < 8; i++) {
            throttle.take(64 << 10);
        }
        other.join();
        // 1 MiB at 4 MiB/s is 250 ms, less the 100 ms a pause may have banked
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(145);
    }

    @Test
    void aWaitInterruptedStopsAtOnceAndKeepsTheFlag() {
        var throttle = new Throttle(1024);
        Thread.currentThread().interrupt();
        assertThat(throttle.pace(1 << 20)).isFalse();
        assertThat(Thread.interrupted()).isTrue();
        assertThat(Throttle.unlimited().pace(1 << 30)).isTrue();
    }
}
