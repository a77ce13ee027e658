package dev.dht.node;

import dev.dht.node.config.ConfigException;
import dev.dht.node.config.ConfigParser;
import dev.dht.node.config.NodeConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Entry point: options -> {@link Node#start}; SIGTERM/SIGINT -> graceful {@link Node#shutdown}, exit 0.
 * Exit codes: 0 stopped by a signal or --help, 1 could not start (e.g. data dir locked), 2 bad options.
 */
public final class NodeMain {
    private static final Logger log = LoggerFactory.getLogger(NodeMain.class);

    private NodeMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        NodeConfig config;
        try {
            config = ConfigParser.parse(List.of(args), System.getenv());
        } catch (ConfigParser.HelpRequested h) {
            System.out.print(ConfigParser.help());
            System.out.flush();
            System.exit(0);
            return;
        } catch (ConfigException e) {
            System.err.println("dht-node: " + e.getMessage() + " (see --help)");
            System.exit(2);
            return;
        }

        Node node;
        try {
            node = Node.start(config);
        } catch (Exception e) {
            log.error("cannot start: {}", e.getMessage());
            System.exit(1);
            return;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        // The JVM turns SIGTERM and SIGINT into shutdown hooks. This one stops the node gracefully and then
        // halts with 0: a requested stop that completed is a success (otherwise the JVM reports 143/130).
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            node.close();
            stopped.countDown();
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(0);
        }, "dht-shutdown"));
        stopped.await();
    }
}
