package dev.dht.node.config;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs a new member set when the cluster file's content changes ({@link FilePoller}: content, not mtime, so a
 * mounted ConfigMap's symlink swap is seen); the first poll installs the file's set if it differs from the one the
 * node started with. A file that cannot be read or parsed keeps the previous set and is logged once per distinct
 * content; a list refused for now (the {@code refusal}) is looked at again at every poll until the refusal passes.
 */
public final class ClusterFileWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClusterFileWatcher.class);

    private final Path file;
    private final Membership membership;
    private final String declaredRack;
    private final Function<ClusterMembers, String> refusal;
    private final FilePoller poller;
    private String lastRefusal; // guarded by the poller: offers come one at a time

    /** @param declaredRack this member's --rack (a file that puts it in another rack is ignored), or null */
    public ClusterFileWatcher(Path file, Membership membership, String declaredRack, Duration interval) {
        this(file, membership, declaredRack, next -> null, interval);
    }

    /** @param refusal why a list cannot be used now (e.g. racks below the feature level that allows them), or null */
    public ClusterFileWatcher(
            Path file,
            Membership membership,
            String declaredRack,
            Function<ClusterMembers, String> refusal,
            Duration interval) {
        this.file = file;
        this.membership = membership;
        this.declaredRack = declaredRack;
        this.refusal = refusal;
        // No content seen yet: the first poll compares the file with the members the node started with. Taking the
        // file as it is now for "seen" would keep a list that changed since the node read it at start (the
        // operator scaling while this member restarts) until the file changed again; a proposer with that stale
        // list moves the cluster back and forth between the two lists.
        this.poller = FilePoller.offering(
                "dht-cluster-file", List.of(file), null, interval, contents -> apply(contents.get(0)));
    }

    /** One poll; package-visible so that tests can drive it without waiting for the timer. */
    void poll() {
        poller.poll();
    }

    /** @return false if the list is refused for now (offered again at the next poll), true once settled */
    private boolean apply(byte[] content) {
        ClusterMembers next;
        try {
            next = ClusterMembers.parseFile(new String(content, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            log.warn(
                    "cluster file {} ignored, keeping {} members: {}",
                    file,
                    membership.current().size(),
                    e.getMessage());
            return true;
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
            return true;
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
            return false; // read again, and used, once the reason is gone (the level raised)
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
        return true;
    }

    @Override
    public void close() {
        poller.close();
    }
}
