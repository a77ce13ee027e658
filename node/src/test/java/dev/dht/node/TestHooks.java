package dev.dht.node;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.http.EntityHandler;
import dev.dht.node.storage.Store;
import java.io.IOException;
import java.util.function.BiFunction;

/**
 * The node's test hooks, reachable from test code only: they are package-private in {@link Node}, and this fixture
 * lives in the test sources of the same package. Users of the node never see them.
 */
public final class TestHooks {
    private TestHooks() {}

    /** A node whose entity handler the factory builds from the real store and clock (instead of the coordinator). */
    public static Node start(NodeConfig config, BiFunction<Store, HybridLogicalClock, EntityHandler> entityHandlers)
            throws IOException {
        return Node.start(config, entityHandlers);
    }
}
