package dev.dht.node.restore;

import dev.dht.node.http.EntityHandler;
import dev.dht.node.http.EntityRequest;
import dev.dht.node.http.InlineResponder;
import dev.dht.node.http.RangeHandler;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.io.AtomicFiles;
import dev.dht.node.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this node serves clients, or waits for a restore: a member of a cluster made from a backup answers
 * every client request 503 until the restore is done, so no client ever reads the half-restored data (replica
 * calls and streamed records between members go through). The state is persisted in
 * {@code <data-dir>/restore/state.json}:
 * <ul>
 *   <li>started with {@code --restoring} on a data directory without records: {@code restoring}, until the
 *   operator says the restore is done ({@code POST /v0/admin/restore/finish}) or a peer says it is (a member added
 *   later, or one that missed the call);</li>
 *   <li>{@code done}: serving, for good (a restart does not go back);</li>
 *   <li>no file: serving (a node with data, or without the flag).</li>
 * </ul>
 */
public final class RestoreGate {
    private static final Logger log = LoggerFactory.getLogger(RestoreGate.class);
    static final String DIR = "restore";
    static final String FILE = "state.json";

    private final Path file;
    private volatile boolean restoring;

    /** As saved: restoring, or done and which restore. */
    private record Saved(String phase, String id) {}

    private volatile String doneId;

    /**
     * @param restoringFlag --restoring
     * @param storeEmpty    the node holds no record (a new data directory)
     */
    public RestoreGate(Path dataDir, boolean restoringFlag, boolean storeEmpty) {
        this.file = dataDir.resolve(DIR).resolve(FILE);
        String phase = null;
        try {
            if (Files.exists(file)) {
                Saved m = Json.read(Files.readString(file, StandardCharsets.UTF_8), Saved.class);
                phase = m.phase();
                doneId = m.id();
            }
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read the restore state " + file + ": " + e.getMessage(), e);
        }
        if (phase == null && restoringFlag && storeEmpty) {
            phase = "restoring";
            save(phase, null);
        }
        this.restoring = "restoring".equals(phase);
        if (restoring) {
            log.info("waiting for a restore: client requests are answered 503 until it is done");
        }
    }

    public boolean restoring() {
        return restoring;
    }

    /** The restore the node finished last, or null. */
    public String doneId() {
        return doneId;
    }

    /** The restore is done: serve clients from now on (persisted first). */
    public synchronized void done(String id) {
        if (!restoring && id != null && id.equals(doneId)) {
            return;
        }
        save("done", id);
        doneId = id;
        if (restoring) {
            log.info("restore {} done: serving clients", id);
        }
        restoring = false;
    }

    private void save(String phase, String id) {
        try {
            AtomicFiles.writeString(file, Json.write(new Saved(phase, id)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot persist the restore state in " + file, e);
        }
    }

    private static final String REFUSAL = "restoring from a backup: this cluster serves clients once the restore is"
            + " done (GET /v0/admin/restore shows the progress)";

    /** Client requests get 503 while restoring; members' calls pass. */
    public EntityHandler wrap(EntityHandler inner) {
        return new EntityHandler() {
            @Override
            public void handle(EntityRequest request, Responder responder) {
                if (!refused(request.internal(), responder)) {
                    inner.handle(request, responder);
                }
            }

            @Override
            public boolean coordinates(EntityRequest request) {
                return !waits(request.internal()) && inner.coordinates(request);
            }

            @Override
            public boolean tryInline(EntityRequest request, InlineResponder responder) {
                return refused(request.internal(), responder) || inner.tryInline(request, responder);
            }
        };
    }

    public RangeHandler wrap(RangeHandler inner) {
        return (request, responder) -> {
            if (!refused(request.internal(), responder)) {
                inner.handle(request, responder);
            }
        };
    }

    /** The one check of every wrapper: a client's request waits while restoring, a member's call passes. */
    private boolean waits(boolean internal) {
        return restoring && !internal;
    }

    /** A request that {@link #waits}: answered 503 with the reason, and true (nothing else may answer it). */
    private boolean refused(boolean internal, Responder responder) {
        if (waits(internal)) {
            responder.fail(Responses.SERVICE_UNAVAILABLE, REFUSAL);
            return true;
        }
        return false;
    }
}
