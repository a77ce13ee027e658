package dev.dht.node.topology;

import dev.dht.node.io.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's rack is part of its identity (docs/cluster.md, "Racks"): the data directory keeps the rack the member
 * last ran in ({@value #NAME}, absent while it has none), and a member that declares another rack ({@code --rack})
 * refuses to start unless told the change is deliberate, as Cassandra's checkRack does. A rack that changes by
 * accident (a pod rescheduled into another zone, a label edited) would otherwise make the member serve under a
 * rack the rest of the cluster does not place it in, or go unnoticed until a rack is lost.
 *
 * <p>Where placement comes from is unchanged: the member list. A member that declares no rack takes the one the
 * list (the topology state it serves) gives it, and the record follows that state: a list that moves it is a move
 * like any other. A declared rack must agree with the list (checked when the options are read, and on every new
 * cluster file).
 */
public final class RackIdentity {
    private static final Logger log = LoggerFactory.getLogger(RackIdentity.class);
    public static final String NAME = "dht-rack";

    private final Path dir;
    private final String declared;
    private volatile String recorded;
    private volatile String disagreement;

    private RackIdentity(Path dir, String declared, String recorded) {
        this.dir = dir;
        this.declared = declared;
        this.recorded = recorded;
    }

    /** Thrown when a member declares another rack than the one its data directory ran in. */
    public static final class RackChanged extends IOException {
        private static final long serialVersionUID = 1L;

        RackChanged(String message) {
            super(message);
        }
    }

    /**
     * Checks the declared rack against the one recorded in dir, and records it.
     *
     * @param declared     --rack, or null (the member takes the list's)
     * @param acceptChange --accept-rack-change
     * @throws RackChanged if the member ran in another rack and the change is not accepted
     */
    public static RackIdentity open(Path dir, String declared, boolean acceptChange) throws IOException {
        String recorded = read(dir);
        RackIdentity identity = new RackIdentity(dir, declared, recorded);
        if (declared == null || declared.equals(recorded)) {
            return identity;
        }
        if (recorded != null && !acceptChange) {
            throw new RackChanged("this member ran in rack '" + recorded + "' (" + dir.resolve(NAME) + ") and now"
                    + " declares rack '" + declared + "' (--rack / DHT_RACK). A member's rack is part of its identity:"
                    + " if the rack was changed by mistake, start it with --rack " + recorded + " again; to move it to"
                    + " rack '" + declared
                    + "' on purpose, put it in that rack in the member list and start it once with"
                    + " --accept-rack-change (DHT_ACCEPT_RACK_CHANGE=true): the cluster then moves the data whose replicas"
                    + " change, as a scale does (or give it an empty data directory: it joins as a new member)");
        }
        if (recorded != null) {
            log.warn(
                    "rack change accepted: this member ran in rack '{}' and now runs in rack '{}'", recorded, declared);
        } else {
            log.info("this member's rack is '{}' from now on (its data directory had none)", declared);
        }
        identity.write(declared);
        return identity;
    }

    /** The rack recorded in dir, or null. */
    public static String read(Path dir) throws IOException {
        Path file = dir.resolve(NAME);
        if (!Files.exists(file)) {
            return null;
        }
        String rack = Files.readString(file, StandardCharsets.UTF_8).trim();
        return rack.isEmpty() ? null : rack;
    }

    /** The rack this member last ran in, or null. */
    public String recorded() {
        return recorded;
    }

    /** The declared rack and the topology's disagree (null: they do not): for the log and the status. */
    public String disagreement() {
        return disagreement;
    }

    /**
     * The member serves a stable state in which the list puts it in {@code rack} (null: no racks). Without a
     * declared rack the record follows it; with one, a state that places the member elsewhere is logged.
     */
    public void placed(String self, TopologyState state) {
        if (state == null || state.moving() || !state.stable().contains(self)) {
            return;
        }
        String rack = state.stable().rackOf(self);
        if (declared != null) {
            String problem = rack != null && !rack.equals(declared)
                    ? "the cluster places this member in rack '"
                            + rack + "' but it declares rack '" + declared + "' (--rack): fix the member list or the"
                            + " declaration"
                    : null;
            if (problem != null && !problem.equals(disagreement)) {
                log.error(problem);
            }
            disagreement = problem;
            return;
        }
        if (rack == null ? recorded == null : rack.equals(recorded)) {
            return;
        }
        try {
            write(rack);
            log.info("this member's rack is now '{}' (the member list's)", rack);
        } catch (IOException e) {
            log.error("cannot record this member's rack '{}' in {}: {}", rack, dir, e.getMessage());
        }
    }

    private void write(String rack) throws IOException {
        Path file = dir.resolve(NAME);
        if (rack == null) {
            Files.deleteIfExists(file);
        } else {
            AtomicFiles.writeString(file, rack + "\n");
        }
        recorded = rack;
    }
}
