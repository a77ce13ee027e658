package dev.dht.node.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls the cluster file's content (not its mtime: a mounted ConfigMap changes by swapping a symlink, and
 * reading through the path follows it) and installs a new member set when the content changes; the first poll
 * installs the file's set if it differs from the one the node started with. A file that
 * cannot be read or parsed keeps the previous set and is logged once per distinct content.
 */
public final class ClusterFileWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClusterFileWatcher.class);

    private final Path file;
    private final Membership membership;
    private final String declaredRack;
    private final java.util.function.Function<ClusterMembers, String> refusal;
    private final ScheduledExecutorService timer;
    private byte[] lastContent;
    private String lastRefusal;

    /** @param declaredRack this member's --rack (a file that puts it in another rack is ignored), or null */
    public ClusterFileWatcher(Path file, Membership membership, String declaredRack, Duration interval) {
        this(file, membership, declaredRack, next -> null, interval);
    }

    /** @param refusal why a list cannot be used now (e.g. racks below the feature level that allows them), or null */
    public ClusterFileWatcher(
            Path file,
            Membership membership,
            String declaredRack,
            java.util.function.Function<ClusterMembers, String> refusal,
            Duration interval) {
        this.file = file;
        this.membership = membership;
        this.declaredRack = declaredRack;
        this.refusal = refusal;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dht-cluster-file");
            t.setDaemon(true);
            return t;
        });
        // No content seen yet: the first poll compares the file with the members the node started with. Taking the
        // file as it is now for "seen" would keep a list that changed since the node read it at start (the
        // operator scaling while this member restarts) until the file changed again; a proposer with that stale
        // list moves the cluster back and forth between the two lists.
        this.lastContent = null;
        long ms = interval.toMillis();
        timer.scheduleWithFixedDelay(this::poll, ms, ms, TimeUnit.MILLISECONDS);
    }

    /** One poll; package-visible so that tests can drive it without waiting for the timer. */
    synchronized void poll() {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (IOException e) {
            // Mid-swap or deleted: keep the current members, look again next time.
            return;
        }
        if (Arrays.equals(content, lastContent)) {
            return;
        }
        lastContent = content;
        ClusterMembers next;
        try {
            next = ClusterMembers.parseFile(new String(content, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            log.warn(
                    "cluster file {} ignored, keeping {} members: {}",
                    file,
                    membership.current().size(),
                    e.getMessage());
            return;
        }
        String listed = next.rackOf(membership.self());
        if (declaredRack != null && listed != null && !listed.equals(declaredRack)) {
            log.warn(
                    "cluster file {} ignored, keeping {} members: it puts this member in rack '{}', which"
                            + " declares rack '{}' (--rack)",
                    file,
                    membership.current().size(),
                    listed,
                    declaredRack);
            return;
        }
        String refused = refusal.apply(next);
        if (refused != null) {
            if (!refused.equals(lastRefusal)) {
                log.warn(
                        "cluster file {} ignored, keeping {} members: {}",
                        file,
                        membership.current().size(),
                        refused);
            }
            lastRefusal = refused;
            lastContent = null; // read again, and used, once the reason is gone (the level raised)
            return;
        }
        lastRefusal = null;
        ClusterMembers previous = membership.current();
        if (membership.update(next)) {
            TreeSet<String> added = new TreeSet<>(next.urls());
            added.removeAll(previous.urls());
            TreeSet<String> removed = new TreeSet<>(previous.urls());
            removed.removeAll(next.urls());
            log.info(
                    "cluster file changed: {} members, added {}, removed {}{}",
                    next.size(),
                    added,
                    removed,
                    next.racks().equals(previous.racks()) ? "" : ", racks " + next.racks());
            if (!next.contains(membership.self())) {
                log.warn("this node ({}) is not a member of the new cluster", membership.self());
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
