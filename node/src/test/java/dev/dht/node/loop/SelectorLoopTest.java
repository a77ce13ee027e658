package dev.dht.node.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.CancelledKeyException;
import java.util.Collections;
import java.util.Iterator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import one.nio.net.Selector;
import one.nio.net.Session;
import org.junit.jupiter.api.Test;

/**
 * Found by make chaos: one-nio's JDK selector threw CancelledKeyException out of select() (a key cancelled by
 * another thread between the selection and its iteration), which ended the selector thread; every connection
 * on it then hung while the node looked alive.
 */
class SelectorLoopTest {
    @Test
    void aSelectorThatThrowsDoesNotEndTheLoop() throws Exception {
        CountDownLatch selects = new CountDownLatch(3);
        ThrowingOnceSelector selector = new ThrowingOnceSelector(selects);
        SelectorLoop loop = new SelectorLoop(selector, "test-selector");
        loop.setDaemon(true);
        loop.start();
        try {
            assertThat(selects.await(10, TimeUnit.SECONDS))
                    .as("the loop selects again after the selector threw")
                    .isTrue();
            assertThat(loop.isAlive()).isTrue();
        } finally {
            selector.open = false;
            loop.join(10_000);
        }
        assertThat(loop.isAlive()).as("it still ends when the selector closes").isFalse();
    }

    /** Throws from its first select(), as one-nio's JavaSelector does on a key cancelled meanwhile; then idles. */
    private static final class ThrowingOnceSelector extends Selector {
        final CountDownLatch selects;
        volatile boolean open = true;
        private boolean thrown;

        ThrowingOnceSelector(CountDownLatch selects) {
            this.selects = selects;
        }

        @Override
        public Iterator<Session> select() {
            selects.countDown();
            if (!thrown) {
                thrown = true;
                throw new CancelledKeyException();
            }
            try {
                Thread.sleep(10); // a real selector waits for ready sessions
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Collections.emptyIterator();
        }

        @Override
        public int size() {
            return 0;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }

        @Override
        public void register(Session session) {}

        @Override
        public void unregister(Session session) {}

        @Override
        public void enable(Session session) {}

        @Override
        public void disable(Session session) {}

        @Override
        public void listen(Session session, int events) {}

        @Override
        public Iterator<Session> iterator() {
            return Collections.emptyIterator();
        }

        @Override
        public long lastWakeupTime() {
            return 0;
        }
    }
}
