package dev.dht.node.threads;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DaemonThreadsTest {
    @Test
    void aRepeatedTaskThatThrowsRunsAgain() throws InterruptedException {
        var timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("test-repeat", false));
        try {
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch third = new CountDownLatch(3);
            DaemonThreads.repeat(timer, "a failing task", Duration.ofMillis(10), () -> {
                runs.incrementAndGet();
                third.countDown();
                throw new IllegalStateException("every run fails");
            });
            assertThat(third.await(10, TimeUnit.SECONDS))
                    .as("runs after the first threw: %s", runs.get())
                    .isTrue();
        } finally {
            timer.shutdownNow();
        }
    }
}
