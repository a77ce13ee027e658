package dev.dht.node.repair;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.natives.BackgroundPriority;
import dev.dht.node.support.ThreadPolicies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The peers' scans wait in a bounded queue (a call beyond it is refused at once: RepairEndpoints answers 503), and
 * their results are handed on by a thread of normal priority while the scans themselves run under SCHED_IDLE.
 */
class BackgroundScansTest {
    private static final int QUEUE = 8;

    /** The calling thread's scheduling policy, from the kernel. */
    private static int policy() {
        try {
            return ThreadPolicies.statField(Path.of("/proc/thread-self"), 41);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aFullQueueRefusesTheNextScanAndEveryAcceptedOneIsHandedOnAtNormalPriority() throws Exception {
        int lowered = BackgroundPriority.available() ? ThreadPolicies.SCHED_IDLE : ThreadPolicies.SCHED_OTHER;
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        List<Integer> scanPolicies = new CopyOnWriteArrayList<>();
        List<Integer> handedOn = new CopyOnWriteArrayList<>();
        List<Integer> senderPolicies = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1 + QUEUE);
        Consumer<Integer> handOn = n -> {
            handedOn.add(n);
            senderPolicies.add(policy());
            done.countDown();
        };
        try (BackgroundScans scans = new BackgroundScans("dht-test-scan", QUEUE, "dht-test-send")) {
            boolean first = scans.submit(
                    () -> {
                        running.countDown();
                        await(release);
                        scanPolicies.add(policy());
                        return 0;
                    },
                    handOn);
            assertThat(first).isTrue();
            assertThat(running.await(10, TimeUnit.SECONDS))
                    .as("the first scan runs")
                    .isTrue();
            for (int i = 1; i <= QUEUE; i++) {
                int n = i;
                assertThat(scans.submit(
                                () -> {
                                    scanPolicies.add(policy());
                                    return n;
                                },
                                handOn))
                        .as("scan %d waits in the queue", i)
                        .isTrue();
            }
            assertThat(scans.submit(() -> -1, handedOn::add))
                    .as("the queue is full: refused")
                    .isFalse();

            release.countDown();
            assertThat(done.await(10, TimeUnit.SECONDS))
                    .as("every accepted scan handed on")
                    .isTrue();
            assertThat(handedOn).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8);
            assertThat(scanPolicies).hasSize(1 + QUEUE).containsOnly(lowered);
            assertThat(senderPolicies).hasSize(1 + QUEUE).containsOnly(ThreadPolicies.SCHED_OTHER);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
