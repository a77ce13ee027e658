package dev.dht.node.restore;

import dev.dht.node.backup.BackupAgent;
import dev.dht.node.backup.BackupManifest;
import dev.dht.node.backup.BackupStore;
import dev.dht.node.backup.MemberManifest;
import dev.dht.node.io.Directories;
import dev.dht.node.io.Throttle;
import dev.dht.node.objectstore.ObjectStoreException;
import dev.dht.node.replication.Topology;
import dev.dht.node.storage.StoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's share of a restore, apart from {@link RestoreAgent}'s phases: whether the backup may be restored here,
 * and the sending of the share's parts with its progress counted.
 */
final class RestoreShare {
    private static final Logger log = LoggerFactory.getLogger(RestoreAgent.class);

    /** Counted as the parts are listed and downloaded, for the agent's status. */
    private volatile int partsTotal;

    private final AtomicLong bytesTotal = new AtomicLong();
    private final AtomicLong bytesDownloaded = new AtomicLong();

    private final BackupStore backups;
    private final RestoreGate gate;
    private final Topology topology;
    private final Duration grace;
    private final LongSupplier wall;

    private final Path dir;
    private final Inbox inbox;
    private final RecordSender sender;
    private final PartStreamer streamer;
    /** The agent owns the phase: the run reports to it. */
    private final RestoreAgent agent;

    RestoreShare(
            BackupStore backups,
            RestoreGate gate,
            Topology topology,
            Duration grace,
            LongSupplier wall,
            Path dir,
            Inbox inbox,
            RecordSender sender,
            Throttle throttle,
            int batchBytes,
            BooleanSupplier closed,
            Consumer<RestoreJob> progress,
            RestoreAgent agent) {
        this.streamer = new PartStreamer(backups, throttle, sender, batchBytes, dir, bytesDownloaded, closed, progress);
        this.backups = backups;
        this.gate = gate;
        this.topology = topology;
        this.grace = grace;
        this.wall = wall;
        this.dir = dir;
        this.inbox = inbox;
        this.sender = sender;
        this.agent = agent;
    }

    /**
     * @throws BackupAgent.Conflict the topology is moving, the backup is not complete, or it is too old for a live
     *                              cluster, or encrypted with another key
     */
    void admit(String id) {
        Topology.View v = topology.view();
        if (!v.decided() || v.state().moving()) {
            throw new BackupAgent.Conflict("this node has no stable topology yet (" + v.state() + "): a restore"
                    + " places records by the cluster's ring; ask again when the members are settled");
        }
        BackupManifest manifest = backups.manifest(id);
        if (manifest == null) {
            throw new BackupAgent.Conflict("backup " + id + " is not complete in "
                    + backups.client().location() + " (no manifest): only a complete backup can be restored");
        }
        long age = wall.getAsLong() - manifest.t0();
        if (!gate.restoring() && age > grace.toMillis()) {
            throw new BackupAgent.Conflict("backup " + id + " started "
                    + Duration.ofMillis(age).toMinutes()
                    + " minutes ago, more than the tombstone grace (" + grace + "): merged into this live cluster it"
                    + " could bring back keys deleted since then whose tombstones are purged. Restore it into a new"
                    + " cluster instead");
        }
        if (manifest.encryption() != null
                && !manifest.encryption().equals(backups.codec().keyId())) {
            throw new BackupAgent.Conflict("backup " + id + " is encrypted with key " + manifest.encryption()
                    + (backups.codec().keyId() == null
                            ? ", and this node has no encryption key"
                            : ", this node's key is " + backups.codec().keyId())
                    + ": wrong encryption key");
        }
    }

    /** Sends the parts of the share not done yet (on the agent's thread); the outcome goes to the agent. */
    void run(RestoreJob start) {
        RestoreJob j = start;
        try {
            BackupManifest manifest = backups.manifest(j.id());
            if (manifest == null) {
                throw new BackupAgent.Conflict("backup " + j.id() + " has no manifest any more");
            }
            List<Integer> mine = new ArrayList<>();
            for (int i = 0; i < manifest.members().size(); i++) {
                if (i % j.shares() == j.share()) {
                    mine.add(i);
                }
            }
            partsTotal = mine.size();
            List<MemberManifest> parts = new ArrayList<>();
            long total = 0;
            for (int i : mine) {
                MemberManifest m = backups.member(j.id(), i);
                if (m == null || !m.complete()) {
                    throw new BackupAgent.Conflict("backup " + j.id() + " lost member part " + i);
                }
                parts.add(m);
                total += m.bytes();
            }
            bytesTotal.set(total);
            if (gate.restoring()) {
                sender.toInboxes(j.id(), inbox);
            }
            for (MemberManifest part : parts) {
                if (j.partsDone().contains(part.member())) {
                    bytesDownloaded.addAndGet(part.bytes());
                    continue;
                }
                j = streamer.stream(j, part);
                if (j == null) {
                    return; // closing: resumes after the restart
                }
            }
            agent.streamed(j);
            Directories.deleteTree(dir.resolve(j.id()));
            log.info(
                    "restore {}: share {} of {} sent, {} parts, {} records",
                    j.id(),
                    j.share(),
                    j.shares(),
                    parts.size(),
                    sender.recordsSent.get());
        } catch (BackupAgent.Conflict | ObjectStoreException | StoreException | IOException | UncheckedIOException e) {
            agent.fail(j, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.error("restore {} failed", j.id(), e);
            agent.fail(j, e.toString());
        }
    }

    /** The share's progress for the agent's status: its parts (done: as saved in the job) and bytes. */
    void progress(Map<String, Object> m, RestoreJob j) {
        m.put(
                "parts",
                Map.of(
                        "total",
                        partsTotal,
                        "done",
                        j == null ? 0 : j.partsDone().size()));
        m.put("bytes", Map.of("total", bytesTotal.get(), "downloaded", bytesDownloaded.get()));
    }
}
