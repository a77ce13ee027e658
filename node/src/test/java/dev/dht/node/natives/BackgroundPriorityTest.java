package dev.dht.node.natives;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dht.node.support.ThreadPolicies;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Background threads really run under SCHED_IDLE, at nice 19, where the node can lower them (Linux, JDK 22+), and only
 * they do. The build accepts JDK 21, where lowering needs the FFM API it lacks: there the lowering test is skipped
 * with that reason (reported as skipped, not passed), and the fallback (nothing lowered, and it says so) is tested.
 */
class BackgroundPriorityTest {
    /** The nice value of a thread of this process, from the kernel (field 19 of its stat). */
    private static int nice(int tid) throws IOException {
        return statField(tid, 19);
    }

    /** The scheduling policy of a thread of this process, from the kernel (field 41 of its stat; 0 SCHED_OTHER). */
    private static int policy(int tid) throws IOException {
        return statField(tid, 41);
    }

    private static int statField(int tid, int field) throws IOException {
        return ThreadPolicies.statField(Path.of("/proc/self/task/" + tid), field);
    }

    private static boolean supported() {
        return System.getProperty("os.name").toLowerCase().contains("linux")
                && Runtime.version().feature() >= 22;
    }

    @Test
    void onLinuxWithAJdkOf22OrNewerItIsAvailable() {
        assertThat(BackgroundPriority.available()).isEqualTo(supported());
    }

    @Test
    void withoutLinuxAndJdk22NothingIsLowered() {
        assumeFalse(supported(), "Linux with JDK " + Runtime.version().feature() + ": lowering is available here");
        assertThat(BackgroundPriority.lowerCurrentThread()).isFalse();
    }

    @Test
    void aLoweredThreadRunsUnderSchedIdleAtNice19AndTheOthersKeepTheirs() throws Exception {
        assumeTrue(
                supported(),
                "lowering a thread needs Linux and JDK 22+ (the FFM API); this is " + System.getProperty("os.name")
                        + " with JDK " + Runtime.version().feature());
        // the test's own thread keeps what it had (0, or the nice the build runs under)
        int ownNice = nice(BackgroundPriority.currentTid());
        int ownPolicy = policy(BackgroundPriority.currentTid());
        AtomicInteger tid = new AtomicInteger();
        AtomicInteger niceSeen = new AtomicInteger(-100);
        AtomicInteger policySeen = new AtomicInteger(-1);
        CountDownLatch done = new CountDownLatch(1);
        Thread t = new Thread(
                () -> {
                    assertThat(BackgroundPriority.lowerCurrentThread()).isTrue();
                    tid.set(BackgroundPriority.currentTid());
                    try {
                        niceSeen.set(nice(tid.get()));
                        policySeen.set(policy(tid.get()));
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                    done.countDown();
                },
                "dht-test-lowered");
        t.start();
        done.await();
        t.join();
        assertThat(niceSeen.get()).isEqualTo(BackgroundPriority.NICE);
        assertThat(policySeen.get()).isEqualTo(BackgroundPriority.SCHED_IDLE);
        assertThat(nice(BackgroundPriority.currentTid()))
                .as("the test's own thread")
                .isEqualTo(ownNice);
        assertThat(policy(BackgroundPriority.currentTid()))
                .as("the test's own thread")
                .isEqualTo(ownPolicy);
    }
}
