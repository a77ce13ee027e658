package dev.dht.node;

import dev.dht.node.hints.HintStore;
import dev.dht.node.metrics.NodeMetrics;
import dev.dht.node.movement.MovementStats;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.plane.PlaneGuard;
import dev.dht.node.replication.choice.ChoiceMetrics;
import dev.dht.node.storage.Store;
import dev.dht.node.storage.StoreStats;
import dev.dht.node.tls.ClientTls;
import dev.dht.node.tls.MemberTls;
import dev.dht.node.topology.TopologyState;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.function.ToLongFunction;

/**
 * The node's gauges and counters on /metrics, read from its parts at scrape time. Apart from {@link Node} so
 * that wiring the parts and exporting them stay two short classes.
 */
final class NodeGauges {
    private final Node node;
    private final NodeMetrics metrics;

    private NodeGauges(Node node) {
        this.node = node;
        this.metrics = node.metrics;
    }

    static void register(Node node) {
        new NodeGauges(node).registerAll();
    }

    private void registerAll() {
        metrics.info("dht_build", "This member's release", "version", dev.dht.node.release.Release.VERSION);
        metrics.gauge(
                "dht_feature_level",
                "The cluster feature level this member runs at (docs/upgrading.md)",
                node.featureLevel::current);
        metrics.gauge("dht_request_queue_depth", "Requests waiting for a worker", node.workers::queueDepth);
        metrics.gauge("dht_request_queue_capacity", "Size of the bounded request queue", node.config::queueSize);
        metrics.gauge("dht_workers_busy", "Workers running a request", node.workers::active);
        metrics.gauge("dht_workers", "Worker threads", node.config::workers);
        metrics.gauge("dht_requests_in_flight", "Requests dispatched and not yet answered", node.tracker::inFlight);
        metrics.gauge("dht_http_connections", "Open client connections", node.server::getConnections);
        metrics.gauge(
                "dht_cluster_members",
                "Members in the current cluster view",
                () -> node.membership.current().size());
        metrics.counter("dht_cluster_changes", "Changes of the member set since start", node.membership::changes);
        metrics.gauge(
                "dht_profile_running",
                "1 while a /v0/admin/profile capture runs",
                () -> node.profiler.running() ? 1 : 0);
        PeerClient.Outcomes outcomes = node.peers.outcomes();
        metrics.labelledCounter(
                "dht_replica_calls",
                "Calls to other members by outcome",
                "outcome",
                Map.of("ok", outcomes::ok, "error", outcomes::error, "timeout", outcomes::timeout));
        metrics.counter(
                "dht_read_repairs", "Read-repair writes a stale replica accepted", node.coordinator::readRepairs);
        ChoiceMetrics.register(metrics, node.coordinator.choice());
        metrics.gauge("dht_hints_pending", "Hints stored and not yet delivered", hints(HintStore::pending));
        metrics.gauge(
                "dht_hints_bytes", "Bytes of stored hints (bounded by --hint-max-bytes)", hints(HintStore::bytes));
        metrics.counter("dht_hints_stored", "Hints written for replicas that missed a write", hints(HintStore::stored));
        metrics.counter("dht_hints_delivered", "Hints their replica accepted", hints(HintStore::delivered));
        metrics.counter(
                "dht_hints_dropped",
                "Hints dropped: over --hint-max-bytes or older than --hint-max-age",
                hints(HintStore::dropped));
        metrics.counter(
                "dht_hints_rerouted",
                "Hints of a member that left, given to their keys' current replicas",
                hints(HintStore::rerouted));
        registerMovementMetrics();
        registerPlaneMetrics();
        metrics.counter(
                "dht_tombstones_purged",
                "Tombstones older than --tombstone-grace removed",
                () -> node.services.sweeper == null ? 0 : node.services.sweeper.purged());
        metrics.counter(
                "dht_tombstone_sweeps",
                "Complete passes of the tombstone sweeper over the records",
                () -> node.services.sweeper == null ? 0 : node.services.sweeper.passes());
        registerRepairMetrics();
        metrics.counter(
                "dht_selector_passes",
                "Selector loop passes (rounds of ready connections)",
                node.server::selectorPasses);
        metrics.counter(
                "dht_write_groups",
                "Write groups applied at the end of a selector pass (one RocksDB write," + " one WAL write each)",
                node.store::writeGroups);
        metrics.counter(
                "dht_grouped_writes",
                "Writes applied through write groups (divided by" + " dht_write_groups_total: the mean group size)",
                node.store::groupedWrites);
        metrics.counter(
                "dht_repair_index_builds",
                "Builds of repair's digest index from the records (one per round that asks for a newer one)",
                node.store::digestIndexBuilds);
        StatsCache stats = new StatsCache(node.store);
        metrics.gauge(
                "dht_rocksdb_memtable_bytes",
                "rocksdb.cur-size-all-mem-tables",
                () -> stats.get().memtableBytes());
        metrics.gauge(
                "dht_rocksdb_pending_compaction_bytes",
                "rocksdb.estimate-pending-compaction-bytes",
                () -> stats.get().pendingCompactionBytes());
        metrics.gauge(
                "dht_rocksdb_live_sst_bytes",
                "rocksdb.live-sst-files-size",
                () -> stats.get().liveSstBytes());
        metrics.gauge(
                "dht_rocksdb_estimated_keys",
                "rocksdb.estimate-num-keys (tombstones included)",
                () -> stats.get().estimatedKeys());
        metrics.gauge(
                "dht_rocksdb_block_cache_hit_ratio",
                "Block cache hits / lookups since start",
                () -> stats.get().blockCacheHitRatio());
        metrics.counter(
                "dht_rocksdb_block_cache_hits",
                "Block cache hits",
                () -> stats.get().blockCacheHits());
        metrics.counter(
                "dht_rocksdb_block_cache_misses",
                "Block cache misses",
                () -> stats.get().blockCacheMisses());
        metrics.gauge(
                "dht_rocksdb_block_cache_usage_bytes",
                "Bytes held by the block cache",
                () -> stats.get().blockCacheUsageBytes());
        // A flush or compaction takes CPU from requests on a small machine: these say when one ran (a latency
        // spike that coincides with one on several members at once is the machine, not the request path).
        metrics.counter(
                "dht_rocksdb_flush_write_bytes",
                "Table bytes written by memtable flushes",
                () -> stats.get().flushWriteBytes());
        metrics.counter(
                "dht_rocksdb_compaction_write_bytes",
                "Table bytes written by compactions",
                () -> stats.get().compactionWriteBytes());
        metrics.gauge(
                "dht_rocksdb_write_stopped",
                "1 while RocksDB stops writes (compaction behind)",
                () -> stats.get().writeStopped());
        metrics.gauge(
                "dht_range_streams_open",
                "Range responses being streamed (open iterators)",
                () -> stats.get().openCursors());
    }

    private void registerRepairMetrics() {
        var repair = node.services.repair;
        metrics.counter(
                "dht_repair_ranges_compared",
                "Ranges (arcs of the ring) this node compared as a repair " + "coordinator",
                repair::rangesCompared);
        metrics.counter(
                "dht_repair_ranges_out_of_sync",
                "Compared ranges in which some replica lacked a record",
                repair::rangesOutOfSync);
        metrics.counter(
                "dht_repair_keys_repaired",
                "Records a repair this node coordinated stored on a replica " + "that lacked them",
                repair::keysRepaired);
        metrics.counter("dht_repair_bytes_repaired", "Bytes of the records those repairs sent", repair::bytesRepaired);
        metrics.counter(
                "dht_repair_hash_bytes",
                "Bytes of span queries, hashes and digests exchanged to find " + "differences",
                repair::hashBytes);
        metrics.counter(
                "dht_repair_keys_received", "Records repairs and rebuilds stored on this node", repair::keysReceived);
        metrics.counter(
                "dht_repair_rounds",
                "Repair rounds this node completed (one per replica set it " + "coordinates)",
                repair::roundsCompleted);
        metrics.counter(
                "dht_repair_rounds_failed",
                "Repair rounds stopped because a replica did not answer (they " + "resume)",
                repair::roundsFailed);
        metrics.gauge(
                "dht_repair_oldest_range_repaired_seconds",
                "Unix time of the oldest last repair among the "
                        + "ranges this node replicates (0: one was never repaired)",
                () -> repair.oldestRangeRepairMillis() / 1000);
        metrics.gauge(
                "dht_repair_last_round_seconds",
                "Unix time this node last completed a round (0: never)",
                () -> repair.lastRoundMillis() / 1000);
        metrics.gauge(
                "dht_repair_running", "1 while a round this node coordinates runs", () -> repair.running() ? 1 : 0);
        metrics.gauge(
                "dht_rebuild_running",
                "1 while this node rebuilds (it serves no read meanwhile)",
                () -> node.services.rebuild.rebuilding() ? 1 : 0);
    }

    private void registerMovementMetrics() {
        MovementStats ms = node.services.movementStats;
        metrics.gauge(
                "dht_movement_state",
                "1 while this node is in a move (announced or joint), 0 when idle",
                () -> node.services.movementStatus.idle() ? 0 : 1);
        metrics.gauge(
                "dht_movement_topology_epoch",
                "Epoch of this node's topology state (-1: none yet)",
                topologyState(-1, TopologyState::epoch));
        metrics.gauge(
                "dht_movement_topology_version",
                "Version of the topology state: 3 x epoch + stage (0 " + "announced, 1 joint, 2 stable)",
                topologyState(-1, TopologyState::version));
        metrics.gauge(
                "dht_movement_topology_members",
                "Members of the set this node serves or moves to",
                topologyState(0, s -> s.destination().size()));
        metrics.counter("dht_movement_records_sent", "Records this node streamed to new replicas", ms::recordsSent);
        metrics.counter("dht_movement_bytes_sent", "Bytes of record batches this node streamed", ms::bytesSent);
        metrics.counter("dht_movement_records_received", "Records streamed to this node", ms::recordsReceived);
        metrics.counter(
                "dht_movement_bytes_received", "Bytes of record batches streamed to this node", ms::bytesReceived);
        metrics.counter(
                "dht_movement_batches_retried", "Streamed batches sent again after a failure", ms::batchesRetried);
        metrics.gauge(
                "dht_movement_ranges_left",
                "Slices of this node's scan still to send (estimate)",
                node.services.movementStatus::rangesLeft);
        metrics.gauge(
                "dht_movement_keys_left",
                "Records this node still has to scan and send (estimate)",
                node.services.movementStatus::recordsLeft);
        metrics.gauge(
                "dht_movement_bytes_left",
                "Bytes this node still has to scan and send (estimate)",
                node.services.movementStatus::bytesLeft);
        metrics.counter(
                "dht_movement_cleanup_dropped",
                "Records dropped after a move (held beyond this node's " + "share)",
                ms::cleanupDropped);
        metrics.counter(
                "dht_movement_refused",
                "Internal requests refused as coming from an older topology state",
                node.coordinator::refusedByReplicas);
    }

    /** A figure of the hint store, 0 on a node without one. */
    private DoubleSupplier hints(ToLongFunction<HintStore> figure) {
        return () -> node.services.hints == null ? 0 : figure.applyAsLong(node.services.hints);
    }

    /** A figure of this node's topology state, none before it has one. */
    private DoubleSupplier topologyState(long none, ToLongFunction<TopologyState> figure) {
        return () -> {
            TopologyState s = node.services.topologyManager.state();
            return s == null ? none : figure.applyAsLong(s);
        };
    }

    /** What the planes refused (docs/security.md). */
    private void registerPlaneMetrics() {
        PlaneGuard guard = node.server.guard();
        Map<String, DoubleSupplier> refused = new LinkedHashMap<>();
        for (PlaneGuard.Reason r : PlaneGuard.Reason.values()) {
            refused.put(r.name().toLowerCase(Locale.ROOT), () -> guard.refused(r));
        }
        metrics.labelledCounter(
                "dht_plane_refused",
                "Requests a port refused (401, 403): member headers or paths on"
                        + " the client port, missing or too small credentials, admin operations without admin rights, anything"
                        + " but the member protocol on the member port",
                "reason",
                refused);
        metrics.counter(
                "dht_topology_not_members",
                "Topology headers that named a non-member: never asked",
                node.services.topologyManager::notMembers);
        metrics.gauge(
                "dht_auth_tokens",
                "Client tokens in force (--auth-tokens; 0: the client API is open)",
                () -> node.planes.auth() == null ? 0 : node.planes.auth().size());
        metrics.counter(
                "dht_auth_file_rejected",
                "Changed tokens files ignored (they did not parse or held no" + " token): the tokens in force stay",
                () -> node.planes.auth() == null ? 0 : node.planes.auth().rejectedFiles());
        MemberTls tls = node.planes.tls();
        if (tls != null) {
            metrics.gauge(
                    "dht_member_tls_generation", "Member TLS files loaded since start (1: the first)", tls::generation);
            metrics.gauge(
                    "dht_member_tls_cert_expiry_seconds",
                    "Expiry of this member's certificate (Unix time)",
                    () -> tls.notAfterMillis() / 1000.0);
            metrics.counter(
                    "dht_member_tls_reload_failures",
                    "Changed member TLS files that could not be used (the" + " material in force stays)",
                    tls::reloadFailures);
            metrics.counter(
                    "dht_member_tls_handshake_failures",
                    "Member connections whose TLS failed (no or an" + " untrusted certificate, not TLS)",
                    tls::handshakeFailures);
        }
        ClientTls client = node.planes.clientTls();
        if (client != null) {
            metrics.gauge(
                    "dht_client_tls_generation",
                    "Client-port TLS files loaded since start (1: the first)",
                    client::generation);
            metrics.gauge(
                    "dht_client_tls_cert_expiry_seconds",
                    "Expiry of the client port's certificate (Unix time)",
                    () -> client.notAfterMillis() / 1000.0);
            metrics.counter(
                    "dht_client_tls_reload_failures",
                    "Changed client-port TLS files that could not be used" + " (the material in force stays)",
                    client::reloadFailures);
            metrics.counter(
                    "dht_client_tls_handshake_failures",
                    "Client connections whose TLS failed (no or an"
                            + " untrusted client certificate, plaintext, not TLS)",
                    client::handshakeFailures);
        }
        metrics.counter(
                "dht_clock_refused",
                "Clock readings and record timestamps refused as further ahead of the"
                        + " wall clock than --max-clock-ahead (never merged, never stored)",
                node.clock::refused);
    }

    /** One store.stats() per scrape rather than one per gauge. */
    private static final class StatsCache {
        private final Store store;
        private StoreStats value;
        private long takenAt;

        StatsCache(Store store) {
            this.store = store;
        }

        synchronized StoreStats get() {
            long now = System.nanoTime();
            if (value == null || now - takenAt > 100_000_000L) {
                value = store.stats();
                takenAt = now;
            }
            return value;
        }
    }
}
