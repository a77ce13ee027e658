package dev.dht.node;

import dev.dht.node.api.FeatureLevelEndpoint;
import dev.dht.node.api.FlushEndpoint;
import dev.dht.node.api.MetricsEndpoint;
import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.BackupSettings;
import dev.dht.node.config.Membership;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.Units;
import dev.dht.node.drain.Drain;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.DhtServer;
import dev.dht.node.http.EntityHandler;
import dev.dht.node.http.ReplicasPolicy;
import dev.dht.node.http.RequestTracker;
import dev.dht.node.http.WorkerPool;
import dev.dht.node.metrics.NodeMetrics;
import dev.dht.node.natives.NativeLibraries;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.plane.MemberPlane;
import dev.dht.node.plane.Planes;
import dev.dht.node.profiling.ProfileHandler;
import dev.dht.node.release.FeatureLevel;
import dev.dht.node.replication.ClusterRangeHandler;
import dev.dht.node.replication.Coordinator;
import dev.dht.node.replication.HintSink;
import dev.dht.node.replication.Topology;
import dev.dht.node.restore.RestoreGate;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StorageOptions;
import dev.dht.node.storage.Store;
import dev.dht.node.topology.RackIdentity;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node: storage, clock, membership, the cluster's services ({@link ClusterServices}), metrics, worker
 * pools and the HTTP server, started in that order and shut down in reverse. {@link NodeMain} only parses options
 * and calls {@link #start}; tests start nodes in-process the same way.
 */
public final class Node implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Node.class);

    final NodeConfig config;
    final RocksStore store;
    final HybridLogicalClock clock;
    final Membership membership;
    final RackIdentity rackIdentity;
    final FeatureLevel featureLevel;
    final Planes planes;
    final PeerClient peers;
    final ClusterServices services;
    final WorkerPool workers;
    final Coordinator coordinator;
    final NodeMetrics metrics;
    final RequestTracker tracker;
    private final WorkerPool adminPool;
    final ProfileHandler profiler;
    final DhtServer server;
    private boolean closed;

    private Node(
            NodeConfig config,
            BackupSettings backupSettings,
            BiFunction<Store, HybridLogicalClock, EntityHandler> entityHandlers)
            throws IOException {
        this.config = config;
        // before anything opens the data directory: a member that runs in another rack than before refuses to start
        this.rackIdentity = RackIdentity.open(
                config.dataDir(), config.rack().declared(), config.rack().acceptChange());
        // what the release before this one cannot understand waits for the cluster's feature level (docs/upgrading.md)
        this.featureLevel = FeatureLevel.open(config.dataDir(), config.featureLevel());
        if (config.members().hasRacks() && !featureLevel.racks()) {
            throw new IOException(featureLevel.racksRefusal());
        }
        this.store = RocksStore.open(config.dataDir(), StorageOptions.node(config.writeBuffer(), config.blockCache()));
        PeerClient client = null;
        Planes opened = null;
        try {
            long offset = config.cluster().clockOffsetMs();
            LongSupplier wall = offset == 0 ? System::currentTimeMillis : () -> System.currentTimeMillis() + offset;
            this.clock = new HybridLogicalClock(wall, config.security().maxClockAhead());
            this.membership = new Membership(config.self(), config.members());
            opened = Planes.open(config);
            this.planes = opened;
            planes.guard().refuseReleases(featureLevel::refusal);
            MemberPlane plane = planes.memberPlane();
            // Idle member connections close at half the time the peers keep them: well before the peers drop
            // them, and rarely enough that opening them again is no steady cost. Under a load that comes and goes
            // they closed every 15 s and every GET that met a handshake on its way waited for it: p99 1.2 -> 15 ms.
            client = new PeerClient(
                    plane,
                    PEER_CONNECTIONS,
                    PEER_PIPELINE,
                    config.requestTimeout(),
                    Duration.ofMillis(
                            DhtServer.memberIdleMillis(config.idleTimeout().toMillis()) / 2));
            this.peers = client;
            this.services = new ClusterServices(
                    config, backupSettings, store, clock, wall, membership, client, rackIdentity, featureLevel);
            Topology topology = services.topology;
            this.workers = new WorkerPool("dht-worker", config.workers(), config.queueSize());
            this.coordinator = new Coordinator(
                    store,
                    clock,
                    peers,
                    topology,
                    services.hints == null ? HintSink.NONE : services.hints,
                    config.requestTimeout(),
                    workers,
                    services.topologyManager,
                    services.rebuild);
            this.metrics = new NodeMetrics();
            this.tracker = new RequestTracker(metrics);
            this.adminPool = new WorkerPool("dht-admin", 2, 16);
            this.profiler = new ProfileHandler(config.profileDir());
            // ack/from validate against the live member count; the default from is the replication factor.
            // During a move a request may ask up to the larger of the two sets.
            ReplicasPolicy replicas = new ReplicasPolicy(
                    () -> {
                        Topology.View v = topology.view();
                        return v.decided()
                                ? v.maxMembers()
                                : membership.current().size();
                    },
                    config.replicationFactor());
            Map<String, AdminHandler> admin = new HashMap<>(services.handlers());
            admin.put(DhtServer.METRICS, new MetricsEndpoint(metrics));
            admin.put(DhtServer.ADMIN_PREFIX + "profile", profiler);
            admin.putAll(FlushEndpoint.handlers(store));
            admin.putAll(FeatureLevelEndpoint.handlers(featureLevel));
            RestoreGate gate = services.gate;
            try {
                this.server = new DhtServer(
                        new DhtServer.Settings(
                                config.port(),
                                config.selectors(),
                                (int) config.maxBody(),
                                config.idleTimeout().toMillis(),
                                config.sendTimeout().toMillis(),
                                config.memberPort(),
                                planes.memberBindAddress(),
                                planes.tls(),
                                planes.clientTls(),
                                config.security().metricsPort()),
                        gate.wrap(entityHandlers == null ? coordinator : entityHandlers.apply(store, clock)),
                        gate.wrap(new ClusterRangeHandler(store, clock, topology, config.requestTimeout(), plane)),
                        admin,
                        replicas,
                        workers,
                        adminPool,
                        tracker,
                        metrics,
                        planes.guard());
            } catch (java.net.BindException e) { // the JDK's message says only "Address already in use"
                int metrics = config.security().metricsPort();
                throw new IOException(
                        "cannot listen on port " + config.port() + " (client) or " + config.memberPort()
                                + " (member)" + (metrics > 0 ? " or " + metrics + " (metrics)" : "") + ": "
                                + e.getMessage()
                                + "; is another node running on them?",
                        e);
            }
            server.featureLevel(featureLevel::current);
            NodeGauges.register(this);
            services.startTimers();
        } catch (IOException | RuntimeException e) {
            if (client != null) {
                client.close();
            }
            if (opened != null) {
                opened.close();
            }
            store.close();
            throw e;
        }
    }

    /** Opens storage and starts serving. */
    public static Node start(NodeConfig config) throws IOException {
        return start(config, BackupSettings.NONE, null);
    }

    /** Opens storage and starts serving, with backups and restores configured. */
    public static Node start(NodeConfig config, BackupSettings backup) throws IOException {
        return start(config, backup, null);
    }

    /**
     * TEST ONLY (package-private: the test fixture dev.dht.node.TestHooks reaches it): as {@link #start(NodeConfig)},
     * with the entity handler built by the given factory instead of the cluster coordinator (tests hold requests in
     * it, or reach the real store); null means the coordinator.
     */
    static Node start(NodeConfig config, BiFunction<Store, HybridLogicalClock, EntityHandler> entityHandlers)
            throws IOException {
        return start(config, BackupSettings.NONE, entityHandlers);
    }

    private static Node start(
            NodeConfig config,
            BackupSettings backup,
            BiFunction<Store, HybridLogicalClock, EntityHandler> entityHandlers)
            throws IOException {
        // before one-nio's server classes: one socket path, JDK NIO, which the member port's TLS needs
        if (!NativeLibraries.keepOneNioOnJdkSockets()
                && (config.security().memberTls() != null || config.security().clientTls() != null)) {
            throw new IllegalStateException("one-nio's native sockets were loaded before the node started: TLS on"
                    + " the member or client port needs JDK sockets");
        }
        Node node = new Node(config, backup, entityHandlers);
        node.server.start();
        ClusterServices services = node.services;
        if (services.movement != null) {
            services.movement.start(); // after the server: a new node's peers must be able to ask it too
        }
        node.server.readiness(services.rebuild::notReady);
        services.rebuild.start(services.repair.pull());
        services.repair.start();
        log.info(
                "node {} serving on port {} (member port {}): {} selectors, {} workers, queue {}, max body {}, "
                        + "members {}",
                config.self(),
                config.port(),
                config.memberPort(),
                config.selectors(),
                config.workers(),
                config.queueSize(),
                Units.formatSize(config.maxBody()),
                config.members());
        log.info(
                "member port {}: {}{}; sockets: {}",
                config.memberPort(),
                node.planes.describe(),
                config.security().metricsPort() > 0
                        ? "; metrics port " + config.security().metricsPort()
                        : "",
                one.nio.os.NativeLibrary.IS_SUPPORTED
                        ? "one-nio native (loaded before the node started)"
                        : "JDK NIO (one-nio's native sockets off)");
        return node;
    }

    /** Connections per peer: enough to keep both cores busy, few enough that a dead peer costs little. */
    public static final int PEER_CONNECTIONS = 8;
    /** Requests queued per connection; beyond connections x pipeline a call fails at once (peer saturated). */
    public static final int PEER_PIPELINE = 128;

    public int port() {
        return server.port();
    }

    /** The HTTP front (tests, diagnostics). */
    public DhtServer server() {
        return server;
    }

    public NodeConfig config() {
        return config;
    }

    public Membership membership() {
        return membership;
    }

    public NodeMetrics metrics() {
        return metrics;
    }

    public RequestTracker tracker() {
        return tracker;
    }

    /** Graceful stop with the configured grace period. */
    @Override
    public void close() {
        shutdown(config.shutdownGrace());
    }

    /**
     * Graceful stop: (0) drain for --drain-time ({@link Drain}: not ready, every client connection closed after its
     * next answer), (1) stop accepting connections and taking new requests (503 + Connection: close),
     * (2) wait up to grace for in-flight requests to be answered (coordinated ones included: they count until
     * their quorum answered), (3) close the sessions and selectors, (4) let the workers finish, (5) stop hint
     * delivery and the tombstone sweeper, (6) close the peer client (late calls fail, possibly storing hints),
     * (7) close RocksDB. Idempotent.
     */
    public synchronized void shutdown(Duration grace) {
        if (closed) {
            return;
        }
        closed = true;
        Drain.run(server, config.drainTime());
        long deadline = System.currentTimeMillis() + grace.toMillis();
        log.info(
                "shutting down: no new connections, waiting up to {} for {} in-flight requests",
                Units.formatDuration(grace),
                tracker.inFlight());
        server.stopAccepting();
        try {
            if (!tracker.awaitIdle(Math.max(0, deadline - System.currentTimeMillis()))) {
                log.warn(
                        "{} requests still in flight after {}; closing their connections",
                        tracker.inFlight(),
                        Units.formatDuration(grace));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.stop();
        boolean workersDone;
        try {
            long left = Math.max(1000, deadline - System.currentTimeMillis());
            workersDone = workers.shutdown(left) & adminPool.shutdown(left);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            workersDone = false;
        }
        profiler.close();
        // Background work that writes to the store or calls peers stops first (the services), then the client
        // (failing what is still in flight, e.g. late read repairs, whose callbacks may store hints), then the store.
        services.close();
        peers.close();
        planes.close();
        if (workersDone) {
            store.close();
            log.info("node stopped");
        } else {
            // A worker inside RocksDB would crash the process if the database closed under it; the WAL already
            // holds every acknowledged write, so leaving without a clean close loses nothing.
            log.warn("workers still busy; leaving RocksDB to recover from its WAL on the next start");
        }
    }
}
