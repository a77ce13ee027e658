package dev.dht.node;

import dev.dht.node.config.BackupSettings;
import dev.dht.node.config.ConfigException;
import dev.dht.node.config.ConfigParser;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.natives.NativeLibraries;
import java.security.Security;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point: options -> {@link Node#start}; SIGTERM/SIGINT -> graceful {@link Node#shutdown}, exit 0.
 * Exit codes: 0 stopped by a signal, --help or --version, 1 could not start (e.g. data dir locked), 2 bad options.
 */
public final class NodeMain {
    private static final Logger log = LoggerFactory.getLogger(NodeMain.class);

    private NodeMain() {}

    /** Seconds a member's resolved address is reused (the JVM's default is 30 s, failed lookups 10 s). */
    static final String DNS_CACHE_SECONDS = "1";

    static final String DNS_NEGATIVE_CACHE_SECONDS = "1";

    public static void main(String[] args) throws InterruptedException {
        if (List.of(args).contains("--version")) {
            System.out.println("dht-node " + dev.dht.node.release.Release.VERSION + " (cluster feature levels up to "
                    + dev.dht.node.release.FeatureLevel.MAX + ")");
            System.exit(0);
            return;
        }
        limitDnsCaching();
        NodeConfig config;
        BackupSettings backup;
        try {
            config = ConfigParser.parse(List.of(args), System.getenv());
            backup = ConfigParser.backup(List.of(args), System.getenv());
            NativeLibraries.use(ConfigParser.nativeDir(List.of(args), System.getenv()));
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
            // Before anything touches RocksDB or one-nio: RocksDB's own loader would unpack into java.io.tmpdir,
            // and one-nio would load its native sockets.
            NativeLibraries.loadRocksDb();
            NativeLibraries.keepOneNioOnJdkSockets();
            node = Node.start(config, backup);
        } catch (Exception e) {
            log.error("cannot start: {}", e.getMessage());
            System.exit(1);
            return;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        // The JVM turns SIGTERM and SIGINT into shutdown hooks. This one stops the node gracefully and then
        // halts with 0: a requested stop that completed is a success (otherwise the JVM reports 143/130).
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            node.close();
                            stopped.countDown();
                            System.out.flush();
                            System.err.flush();
                            Runtime.getRuntime().halt(0);
                        },
                        "dht-shutdown"));
        stopped.await();
    }

    /**
     * Members are named by DNS, and in Kubernetes a member's name points to a new pod IP each time its pod is
     * replaced. With the JVM's 30 s cache, peers kept dialing the old address of a restarted member (each call
     * waiting for the request timeout: the old IP is gone, nothing refuses) long after it was back; during a
     * rolling update the next member went down meanwhile, and quorum requests failed with 504 (make e2e,
     * step 5). Connections are pooled, so a lookup happens only when one is opened: 1 s costs nothing and
     * leaves the cluster DNS's own TTL as the only delay. Must run before the first lookup; a
     * -Dsun.net.inetaddr.ttl option still wins.
     */
    static void limitDnsCaching() {
        if (System.getProperty("sun.net.inetaddr.ttl") == null) {
            Security.setProperty("networkaddress.cache.ttl", DNS_CACHE_SECONDS);
        }
        if (System.getProperty("sun.net.inetaddr.negative.ttl") == null) {
            Security.setProperty("networkaddress.cache.negative.ttl", DNS_NEGATIVE_CACHE_SECONDS);
        }
    }
}
