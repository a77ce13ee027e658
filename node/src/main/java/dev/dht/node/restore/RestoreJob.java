package dev.dht.node.restore;

import dev.dht.node.io.AtomicFiles;
import dev.dht.node.topology.Json;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which restore this node runs, its share, and how far it got (the parts done, the part being sent and the key after
 * the last acknowledged slice), persisted in {@code <data-dir>/restore/job.json} so that a restarted node goes on.
 */
record RestoreJob(String id, int share, int shares, List<Integer> partsDone, Integer part, byte[] resume) {
    static final String FILE = "job.json";

    /** A saved job and the phase it was saved in. */
    record Saved(RestoreJob job, String phase, String error) {
    }

    void save(Path dir, String phase, String error) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("share", share);
        m.put("shares", shares);
        m.put("phase", phase);
        m.put("error", error);
        m.put("partsDone", partsDone);
        m.put("part", part);
        m.put("resume", resume == null ? null : Base64.getEncoder().encodeToString(resume));
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
            Map<String, Object> m = Json.parseObject(Files.readString(file, StandardCharsets.UTF_8));
            List<Integer> done = new ArrayList<>();
            for (Object o : (List<?>) m.get("partsDone")) {
                done.add(((Long) o).intValue());
            }
            String resume = (String) m.get("resume");
            Long part = (Long) m.get("part");
            RestoreJob job = new RestoreJob((String) m.get("id"), ((Long) m.get("share")).intValue(),
                    ((Long) m.get("shares")).intValue(), done, part == null ? null : part.intValue(),
                    resume == null ? null : Base64.getDecoder().decode(resume));
            return new Saved(job, (String) m.get("phase"), (String) m.get("error"));
        } catch (IOException | RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(RestoreJob.class).warn("cannot read the saved restore job {}: {}; no"
                    + " restore resumed", file, e.getMessage());
            return null;
        }
    }
}
