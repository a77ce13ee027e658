package dev.dht.node;

import dev.dht.node.api.FeatureLevelEndpoint;
import dev.dht.node.api.FlushEndpoint;
import dev.dht.node.api.MetricsEndpoint;
import dev.dht.node.backup.BackupAgent;
import dev.dht.node.backup.BackupEndpoints;
import dev.dht.node.backup.BackupStore;
import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.BackupSettings;
import dev.dht.node.config.ClusterFileWatcher;
import dev.dht.node.config.ClusterSettings;
import dev.dht.node.config.Membership;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.Units;
import dev.dht.node.drain.Drain;
import dev.dht.node.forget.ForgetEndpoints;
import dev.dht.node.forget.ForgottenMembers;
import dev.dht.node.hints.HintDelivery;
import dev.dht.node.hints.HintRouting;
import dev.dht.node.hints.HintStore;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.DhtServer;
import dev.dht.node.http.EntityHandler;
import dev.dht.node.http.ReplicasPolicy;
import dev.dht.node.http.RequestTracker;
import dev.dht.node.http.WorkerPool;
import dev.dht.node.io.Throttle;
import dev.dht.node.metrics.NodeMetrics;
import dev.dht.node.movement.MovementEndpoints;
import dev.dht.node.movement.MovementLoop;
import dev.dht.node.movement.MovementSettings;
import dev.dht.node.movement.MovementStats;
import dev.dht.node.movement.MovementStatus;
import dev.dht.node.natives.NativeLibraries;
import dev.dht.node.objectstore.Encryption;
import dev.dht.node.objectstore.ObjectCodec;
import dev.dht.node.objectstore.S3ObjectStore;
import dev.dht.node.objectstore.StoreCredentials;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.plane.MemberPlane;
import dev.dht.node.plane.Planes;
import dev.dht.node.profiling.ProfileHandler;
import dev.dht.node.rebuild.Rebuild;
import dev.dht.node.release.FeatureLevel;
import dev.dht.node.repair.CurrentRanges;
import dev.dht.node.repair.Repair;
import dev.dht.node.repair.RepairSettings;
import dev.dht.node.replication.ClusterRangeHandler;
import dev.dht.node.replication.Coordinator;
import dev.dht.node.replication.HintSink;
import dev.dht.node.replication.TombstoneSweeper;
import dev.dht.node.replication.Topology;
import dev.dht.node.restore.RestoreAgent;
import dev.dht.node.restore.RestoreEndpoints;
import dev.dht.node.restore.RestoreGate;
import dev.dht.node.storage.RangeCursor;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StorageOptions;
import dev.dht.node.storage.Store;
import dev.dht.node.topology.RackIdentity;
import dev.dht.node.topology.TopologyManager;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node: storage, clock, membership, metrics, worker pools and the HTTP server, started in that order
 * and shut down in reverse. {@link NodeMain} only parses options and calls {@link #start}; tests start nodes
 * in-process the same way.
 */
public final class Node implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Node.class);

    final NodeConfig config;
    final RocksStore store;
    final HybridLogicalClock clock;
    final Membership membership;
    final RackIdentity rackIdentity;
    final FeatureLevel featureLevel;
    private final ClusterFileWatcher clusterWatcher;
    private final Topology topology;
    final TopologyManager topologyManager;
    private final MovementLoop movement;
    final MovementStats movementStats = new MovementStats();
    final MovementStatus movementStatus;
    final PeerClient peers;
    final Coordinator coordinator;
    final HintStore hints;
    private final HintDelivery hintDelivery;
    final TombstoneSweeper sweeper;
    final Rebuild rebuild;
    final Repair repair;
    final NodeMetrics metrics;
    final RequestTracker tracker;
    final WorkerPool workers;
    private final WorkerPool adminPool;
    final ProfileHandler profiler;
    final DhtServer server;
    private final BackupAgent backup;
    /** The object store client (null without one), closed after the backup and restore that use it. */
    private final BackupStore backupStore;

    private final RestoreAgent restore;
    final Planes planes;
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
            // A cluster file can change, so its members move data and agree on a topology state (persisted in the
            // data directory); a static --cluster list is one stable state for the life of the process.
            if (config.clusterFile() != null) {
                this.topology = new Topology(config.self(), config.replicationFactor(), null);
                this.topologyManager = TopologyManager.persistent(
                        config.self(),
                        config.dataDir(),
                        topology,
                        client,
                        clock,
                        config.requestTimeout(),
                        this::isMember);
            } else {
                this.topology = Topology.fixed(config.self(), config.members(), config.replicationFactor());
                this.topologyManager =
                        TopologyManager.fixed(config.self(), topology, client, clock, config.requestTimeout());
            }
            client.observeAnswers(topologyManager);
            topologyManager.onInstall(state -> rackIdentity.placed(config.self(), state));
            ClusterSettings cs = config.cluster();
            this.hints = cs.hints() ? new HintStore(store.sideTable(RocksStore.HINTS), cs.hintMaxBytes(), wall) : null;
            this.workers = new WorkerPool("dht-worker", config.workers(), config.queueSize());
            // Decided before anything is served: a new data directory among members holding data, or a node down
            // longer than the tombstone grace, serves no read until it has pulled its ranges (docs/cluster.md,
            // "Rebuild").
            this.rebuild = new Rebuild(
                    store.sideTable(RocksStore.REPAIR),
                    store.createdAtOpen(),
                    config.members().size(),
                    config.tombstoneGrace(),
                    wall);
            this.coordinator = new Coordinator(
                    store,
                    clock,
                    peers,
                    topology,
                    hints == null ? HintSink.NONE : hints,
                    config.requestTimeout(),
                    workers,
                    topologyManager,
                    rebuild);
            this.repair = new Repair(
                    store,
                    store.sideTable(RocksStore.REPAIR),
                    new CurrentRanges(config.self(), topology, topology::rf),
                    client,
                    clock,
                    wall,
                    new RepairSettings(
                            cs.repairInterval(),
                            cs.repairRate(),
                            config.tombstoneGrace(),
                            propagation(config),
                            config.requestTimeout()),
                    rebuild,
                    rebuild::report);
            this.clusterWatcher = config.clusterFile() == null
                    ? null
                    : new ClusterFileWatcher(
                            config.clusterFile(),
                            membership,
                            config.rack().declared(),
                            next -> next.hasRacks() ? featureLevel.racksRefusal() : null,
                            Duration.ofSeconds(1));
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
            // Members forgotten (gone for good) are left out of the list moved to, and no step waits for them.
            ForgottenMembers forgotten = new ForgottenMembers(store.sideTable(RocksStore.REPAIR));
            this.movement = topologyManager.changeable()
                    ? new MovementLoop(
                            topologyManager,
                            membership,
                            store,
                            client,
                            clock,
                            topology::rf,
                            new MovementSettings(
                                    cs.moveRate(),
                                    cs.moveBatch(),
                                    MovementSettings.DEFAULT_POLL,
                                    config.requestTimeout()),
                            movementStats,
                            forgotten,
                            forgotten::without)
                    : null;
            this.movementStatus = new MovementStatus(topologyManager, movementStats, store, movement);
            // Backups and restores (dev.dht.node.backup, dev.dht.node.restore): a node of a cluster made from a
            // backup serves no client until the restore is done.
            this.backupStore = backupStore(backupSettings, featureLevel);
            RestoreGate gate = new RestoreGate(config.dataDir(), backupSettings.restoring(), isEmpty(store));
            this.backup = backupStore == null
                    ? null
                    : new BackupAgent(
                            store,
                            backupStore,
                            topologyManager::state,
                            config.self(),
                            new Throttle(backupSettings.uploadRate()),
                            backupSettings.partSize(),
                            wall);
            this.restore = new RestoreAgent(
                    store,
                    config.dataDir(),
                    backupStore,
                    gate,
                    topology,
                    client,
                    clock,
                    config.self(),
                    new Throttle(backupSettings.restoreRate()),
                    config.tombstoneGrace(),
                    cs.moveBatch(),
                    config.requestTimeout(),
                    wall);
            Map<String, AdminHandler> admin = new HashMap<>();
            admin.putAll(new BackupEndpoints(backup, wall).handlers());
            admin.putAll(new RestoreEndpoints(restore, backupStore != null).handlers());
            admin.put(DhtServer.METRICS, new MetricsEndpoint(metrics));
            admin.put(DhtServer.ADMIN_PREFIX + "profile", profiler);
            admin.putAll(FlushEndpoint.handlers(store));
            admin.putAll(FeatureLevelEndpoint.handlers(featureLevel));
            admin.putAll(new MovementEndpoints(topologyManager, movementStatus, movementStats, movement, store, clock)
                    .handlers());
            admin.putAll(repair.handlers());
            admin.putAll(rebuild.handlers());
            admin.putAll(
                    new ForgetEndpoints(forgotten, topologyManager, membership, client, clock, config.requestTimeout())
                            .handlers());
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
            this.hintDelivery = hints == null
                    ? null
                    : new HintDelivery(
                            hints,
                            new Routing(),
                            peers,
                            clock,
                            wall,
                            cs.hintMaxAge(),
                            cs.hintInterval(),
                            config.requestTimeout());
            // A tombstone is purged only in a stable state (during a move it must reach T first), not while a restore
            // runs (a restored tombstone must meet every copy of the value it hides first), and only once every
            // replica of its range took part in a repair after it was written (the repair's gate).
            this.sweeper = new TombstoneSweeper(
                    store,
                    config.tombstoneGrace(),
                    wall,
                    () -> {
                        Topology.View v = topology.view();
                        return v.decided() && !v.state().moving() && !restore.active();
                    },
                    repair.purgeGate());
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

    private static BackupStore backupStore(BackupSettings s, FeatureLevel level) throws IOException {
        if (!s.configured()) {
            return null;
        }
        // DHTENC01 until the feature level says every member (and so every restore) reads DHTENC02
        ObjectCodec codec = s.encryptionKey() == null
                ? ObjectCodec.PLAIN
                : Encryption.fromFile(s.encryptionKey(), level::newBackupFormat);
        return new BackupStore(new S3ObjectStore(s.location(), StoreCredentials.of(s.credentials())), codec);
    }

    private static boolean isEmpty(Store store) {
        try (RangeCursor c = store.range(new byte[0], null)) {
            return !c.next();
        }
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
        if (node.movement != null) {
            node.movement.start(); // after the server: a new node's peers must be able to ask it too
        }
        node.server.readiness(node.rebuild::notReady);
        node.rebuild.start(node.repair.pull());
        node.repair.start();
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

    /**
     * The longest a write can take to reach a replica after its timestamp: a hint's maximum age (plus a delivery
     * round) with hints, else the request timeout. A tombstone counts as repaired only if older than the repair
     * by this much (ScyllaDB's propagation delay).
     */
    private static Duration propagation(NodeConfig config) {
        ClusterSettings cs = config.cluster();
        Duration timeouts = config.requestTimeout().multipliedBy(2);
        return cs.hints() ? cs.hintMaxAge().plus(cs.hintInterval()).plus(timeouts) : timeouts;
    }

    /** Whether a URL names a member: in the member list, or taking part in the current topology state. */
    private boolean isMember(String url) {
        if (membership.current().urls().contains(url)) {
            return true;
        }
        var state = topologyManager == null ? null : topologyManager.state();
        return state != null && state.participants().contains(url);
    }

    /** Hint delivery under the current topology: a member that left gets its hints re-routed to the owners. */
    private final class Routing implements HintRouting {
        @Override
        public String header() {
            return topology.view().requestHeader();
        }

        @Override
        public boolean decided() {
            return topology.view().decided();
        }

        @Override
        public boolean serves(String member) {
            return topology.view().serving().contains(member);
        }

        @Override
        public void reroute(byte[] key, Record record) {
            for (String replica : topology.view().replicasOf(key)) {
                if (replica.equals(config.self())) {
                    store.applyIfNewer(key, record);
                } else {
                    hints.store(replica, key, record);
                }
            }
        }
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
        if (clusterWatcher != null) {
            clusterWatcher.close();
        }
        if (movement != null) {
            movement.close();
        }
        topologyManager.close();
        // Background work that writes to the store or calls peers stops first, then the client (failing what is
        // still in flight, e.g. late read repairs, whose callbacks may store hints), then the store.
        if (hintDelivery != null) {
            hintDelivery.close();
        }
        sweeper.close();
        if (backup != null) {
            backup.close();
        }
        restore.close();
        if (backupStore != null) {
            backupStore.client().close();
        }
        rebuild.close();
        repair.close();
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
