package dev.dht.node;

import dev.dht.node.backup.BackupAgent;
import dev.dht.node.backup.BackupEndpoints;
import dev.dht.node.backup.BackupStore;
import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.config.BackupSettings;
import dev.dht.node.config.ClusterFileWatcher;
import dev.dht.node.config.ClusterSettings;
import dev.dht.node.config.Membership;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.forget.ForgetEndpoints;
import dev.dht.node.forget.ForgottenMembers;
import dev.dht.node.hints.HintDelivery;
import dev.dht.node.hints.HintRouting;
import dev.dht.node.hints.HintStore;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.io.Throttle;
import dev.dht.node.movement.MovementEndpoints;
import dev.dht.node.movement.MovementLoop;
import dev.dht.node.movement.MovementSettings;
import dev.dht.node.movement.MovementStats;
import dev.dht.node.movement.MovementStatus;
import dev.dht.node.objectstore.Encryption;
import dev.dht.node.objectstore.ObjectCodec;
import dev.dht.node.objectstore.S3ObjectStore;
import dev.dht.node.objectstore.StoreCredentials;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.rebuild.Rebuild;
import dev.dht.node.release.FeatureLevel;
import dev.dht.node.repair.CurrentRanges;
import dev.dht.node.repair.Repair;
import dev.dht.node.repair.RepairSettings;
import dev.dht.node.replication.TombstoneSweeper;
import dev.dht.node.replication.Topology;
import dev.dht.node.restore.RestoreAgent;
import dev.dht.node.restore.RestoreEndpoints;
import dev.dht.node.restore.RestoreGate;
import dev.dht.node.storage.RangeCursor;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.Store;
import dev.dht.node.topology.RackIdentity;
import dev.dht.node.topology.TopologyManager;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The node's cluster work beside the request path (topology, hints, rebuild, repair, data movement, backups and
 * restores, the tombstone sweep), built in the order they need one another and closed in {@link Node}'s order: apart
 * from {@link Node} so that it reads as storage, services, server.
 */
final class ClusterServices {
    private final NodeConfig config;
    private final RocksStore store;
    private final HybridLogicalClock clock;
    private final Membership membership;
    private final PeerClient client;
    private final LongSupplier wall;
    private final ClusterFileWatcher clusterWatcher;
    final Topology topology;
    final TopologyManager topologyManager;
    final HintStore hints;
    final Rebuild rebuild;
    final Repair repair;
    private final ForgottenMembers forgotten;
    final MovementLoop movement;
    final MovementStats movementStats = new MovementStats();
    final MovementStatus movementStatus;
    /** The object store client (null without one), closed after the backup and restore that use it. */
    private final BackupStore backupStore;

    final RestoreGate gate;
    private final BackupAgent backup;
    private final RestoreAgent restore;

    // Built by startTimers once the server is bound (a node that cannot listen leaves no timer behind), and before
    // it starts: its threads see them.
    private HintDelivery hintDelivery;
    TombstoneSweeper sweeper;

    ClusterServices(
            NodeConfig config,
            BackupSettings backupSettings,
            RocksStore store,
            HybridLogicalClock clock,
            LongSupplier wall,
            Membership membership,
            PeerClient client,
            RackIdentity rackIdentity,
            FeatureLevel featureLevel)
            throws IOException {
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
                    url -> isMember(membership, url));
        } else {
            this.topology = Topology.fixed(config.self(), config.members(), config.replicationFactor());
            this.topologyManager =
                    TopologyManager.fixed(config.self(), topology, client, clock, config.requestTimeout());
        }
        client.observeAnswers(topologyManager);
        topologyManager.onInstall(state -> rackIdentity.placed(config.self(), state));
        this.config = config;
        this.store = store;
        this.clock = clock;
        this.membership = membership;
        this.client = client;
        this.wall = wall;
        ClusterSettings cs = config.cluster();
        this.hints = cs.hints() ? new HintStore(store.sideTable(RocksStore.HINTS), cs.hintMaxBytes(), wall) : null;
        // Decided before anything is served: a new data directory among members holding data, or a node down
        // longer than the tombstone grace, serves no read until it has pulled its ranges (docs/cluster.md,
        // "Rebuild").
        this.rebuild = new Rebuild(
                store.sideTable(RocksStore.REPAIR),
                store.createdAtOpen(),
                config.members().size(),
                config.tombstoneGrace(),
                wall);
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
        // Members forgotten (gone for good) are left out of the list moved to, and no step waits for them.
        this.forgotten = new ForgottenMembers(store.sideTable(RocksStore.REPAIR));
        this.movement = topologyManager.changeable()
                ? new MovementLoop(
                        topologyManager,
                        membership,
                        store,
                        client,
                        clock,
                        topology::rf,
                        new MovementSettings(
                                cs.moveRate(), cs.moveBatch(), MovementSettings.DEFAULT_POLL, config.requestTimeout()),
                        movementStats,
                        forgotten,
                        forgotten::without)
                : null;
        this.movementStatus = new MovementStatus(topologyManager, movementStats, store, movement);
        // Backups and restores (dev.dht.node.backup, dev.dht.node.restore): a node of a cluster made from a
        // backup serves no client until the restore is done.
        this.backupStore = backupStore(backupSettings, featureLevel);
        this.gate = new RestoreGate(config.dataDir(), backupSettings.restoring(), isEmpty(store));
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
    }

    /** The admin and internal endpoints of these services. */
    Map<String, AdminHandler> handlers() {
        Map<String, AdminHandler> admin = new HashMap<>();
        admin.putAll(new BackupEndpoints(backup, wall).handlers());
        admin.putAll(new RestoreEndpoints(restore, backupStore != null).handlers());
        admin.putAll(new MovementEndpoints(topologyManager, movementStatus, movementStats, movement, store, clock)
                .handlers());
        admin.putAll(repair.handlers());
        admin.putAll(rebuild.handlers());
        admin.putAll(new ForgetEndpoints(forgotten, topologyManager, membership, client, clock, config.requestTimeout())
                .handlers());
        return admin;
    }

    /** Starts hint delivery and the tombstone sweep: their timers run from their constructors. */
    void startTimers() {
        ClusterSettings cs = config.cluster();
        this.hintDelivery = hints == null
                ? null
                : new HintDelivery(
                        hints,
                        new Routing(),
                        client,
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
    }

    /**
     * Stops the services in the node's order: the cluster file, movement and topology learning first, then the
     * background work that writes to the store or calls peers (hints, sweep, backup, restore, rebuild, repair), so
     * that the peer client and the store, closed after, have no user left.
     */
    void close() {
        AutoCloseable[] inOrder = {
            clusterWatcher,
            movement,
            topologyManager,
            hintDelivery,
            sweeper,
            backup,
            restore,
            backupStore == null ? null : backupStore.client(),
            rebuild,
            repair
        };
        for (AutoCloseable service : inOrder) {
            if (service == null) {
                continue; // one this node runs without
            }
            try {
                service.close();
            } catch (Exception e) { // none of them declares a checked one: what one throws goes on as it did
                throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
            }
        }
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
    private boolean isMember(Membership membership, String url) {
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
}
