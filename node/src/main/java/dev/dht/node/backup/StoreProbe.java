package dev.dht.node.backup;

import dev.dht.node.objectstore.ObjectStoreException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Whether the object store can be used, for {@link BackupAgent}'s status: probed, and what the last call said. */
final class StoreProbe {
    private static final Logger log = LoggerFactory.getLogger(BackupAgent.class);
    /** A failed probe of the store is made again after this, until it succeeds. */
    static final long PROBE_AGAIN_SECONDS = 60;

    record StoreCheck(Boolean ok, long at, String error) {}

    private final BackupStore backups;
    private final LongSupplier wall;
    private final ScheduledExecutorService thread;
    private final BooleanSupplier closed;
    /** What the last call to the store said: ok (null before the first probe), when, and the error. */
    private volatile StoreCheck check = new StoreCheck(null, 0, null);

    /** @param thread the agent's thread: the probes run there, before a resumed job */
    StoreProbe(BackupStore backups, LongSupplier wall, ScheduledExecutorService thread, BooleanSupplier closed) {
        this.backups = backups;
        this.wall = wall;
        this.thread = thread;
        this.closed = closed;
    }

    /**
     * One call to the store says at once whether backups can work: a wrong bucket or credentials show in the log and
     * the status, not only at the first backup. Made again every minute while it fails (a fixed Secret is re-read).
     */
    void probe() {
        if (closed.getAsBoolean()) {
            return;
        }
        try {
            backups.client().probe();
            if (!Boolean.TRUE.equals(check.ok())) {
                log.info(
                        "object store {}: reachable, bucket present, credentials taken",
                        backups.client().location());
            }
            check = new StoreCheck(true, wall.getAsLong(), null);
        } catch (ObjectStoreException | IllegalStateException | IllegalArgumentException e) {
            if (!String.valueOf(e.getMessage()).equals(check.error())) {
                log.warn(
                        "object store not usable, backups and restores fail until it is (checked again every {} s):"
                                + " {}",
                        PROBE_AGAIN_SECONDS,
                        e.getMessage());
            }
            check = new StoreCheck(false, wall.getAsLong(), e.getMessage());
            if (!closed.getAsBoolean()) {
                thread.schedule(this::probe, PROBE_AGAIN_SECONDS, TimeUnit.SECONDS);
            }
        }
    }

    /** A backup's calls to the store went through. */
    void worked() {
        check = new StoreCheck(true, wall.getAsLong(), null);
    }

    /** A backup's call to the store failed: unreachable, credentials refused or no bucket say it is not usable. */
    void failed(ObjectStoreException e) {
        if (e.status() == 0 || e.credentialsRefused() || "NoSuchBucket".equals(e.code())) {
            check = new StoreCheck(false, wall.getAsLong(), e.getMessage());
        }
    }

    /** The status's {@code store}: ok (null before the first probe), when it was checked, the error. */
    Map<String, Object> status() {
        StoreCheck c = check;
        Map<String, Object> store = new LinkedHashMap<>();
        store.put("ok", c.ok());
        store.put("checkedAt", c.at() == 0 ? null : c.at());
        store.put("error", c.error());
        return store;
    }
}
