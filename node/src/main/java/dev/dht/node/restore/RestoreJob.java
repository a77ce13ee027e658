package dev.dht.node.restore;

import dev.dht.node.io.AtomicFiles;
import dev.dht.node.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;

/**
 * Which restore this node runs, its share, and how far it got (the parts done, the part being sent and the key after
 * the last acknowledged slice), persisted in {@code <data-dir>/restore/job.json} so that a restarted node goes on.
 */
record RestoreJob(String id, int share, int shares, List<Integer> partsDone, Integer part, byte[] resume) {
    static final String FILE = "job.json";

    /** A saved job and the phase it was saved in. */
    record Saved(RestoreJob job, String phase, String error) {}

    /** As saved: the resume key in base64. */
    private record Stored(
            String id,
            int share,
            int shares,
            String phase,
            String error,
            List<Integer> partsDone,
            Integer part,
            String resume) {}

    void save(Path dir, String phase, String error) {
        Stored m = new Stored(
                id,
                share,
                shares,
                phase,
                error,
                partsDone,
                part,
                resume == null ? null : Base64.getEncoder().encodeToString(resume));
        try {
            AtomicFiles.writeString(dir.resolve(FILE), Json.write(m));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot persist the restore job in " + dir, e);
        }
    }

    /** The saved job, or null when there is none (or it cannot be read: then no restore resumes, and it says so). */
    static Saved load(Path dir) {
        Path file = dir.resolve(FILE);
        if (!Files.exists(file)) {
            return null;
        }
        try {
            Stored m = Json.read(Files.readString(file, StandardCharsets.UTF_8), Stored.class);
            RestoreJob job = new RestoreJob(
                    m.id(),
                    m.share(),
                    m.shares(),
                    m.partsDone() == null ? List.of() : m.partsDone(),
                    m.part(),
                    m.resume() == null ? null : Base64.getDecoder().decode(m.resume()));
            return new Saved(job, m.phase(), m.error());
        } catch (IOException | RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(RestoreJob.class)
                    .warn("cannot read the saved restore job {}: {}; no" + " restore resumed", file, e.getMessage());
            return null;
        }
    }
}
