package dev.dht.node.release;

import dev.dht.node.io.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's feature level (docs/upgrading.md), as Strimzi's metadataVersion: what members may use that the
 * release before this one does not understand. A member of a new release runs at the level it found (the old one)
 * until told to raise it ({@code --feature-level}, or {@code POST /v0/admin/feature-level} on every member once every
 * member runs the new release); until then the cluster can be rolled back. The level is kept in the data directory
 * ({@value #FILE}) and is never lowered.
 *
 * <ul>
 *   <li>{@link #BASE} (1): 0.1.0's. No racks in the member list; backups encrypted as DHTENC01.</li>
 *   <li>{@link #RACKS} (2, 0.2.0): racks in the member list and rack-aware placement; backups encrypted as
 *       DHTENC02; members of releases before 0.2.0 (their member requests carry no {@link Release#MEMBER_HEADER})
 *       are refused.</li>
 * </ul>
 */
public final class FeatureLevel {
    private static final Logger log = LoggerFactory.getLogger(FeatureLevel.class);
    public static final String FILE = "dht-feature-level";
    public static final int BASE = 1;
    public static final int RACKS = 2;
    /** The highest level this release knows. */
    public static final int MAX = RACKS;
    /** The first release of each level (index: level). */
    private static final String[] FIRST_RELEASE = {null, "0.1.0", "0.2.0"};

    private final Path dir;
    private volatile int level;

    private FeatureLevel(Path dir, int level) {
        this.dir = dir;
        this.level = level;
    }

    /**
     * The level of the data directory in dir, raised to requested if that is higher (0: none requested).
     *
     * @throws IOException a level this release does not know (the directory ran a newer release at a newer level)
     */
    public static FeatureLevel open(Path dir, int requested) throws IOException {
        int recorded = read(dir);
        if (recorded > MAX) {
            throw new IOException("this data directory runs at feature level " + recorded + " (" + dir.resolve(FILE)
                    + "), which release " + Release.VERSION + " does not know (it knows up to " + MAX + "): a feature"
                    + " level is never lowered; run this member at the release that raised it, or newer");
        }
        if (requested > MAX) {
            throw new IOException("--feature-level " + requested + ": release " + Release.VERSION + " knows levels "
                    + BASE + " to " + MAX);
        }
        FeatureLevel f = new FeatureLevel(dir, Math.max(BASE, recorded));
        if (requested != 0 && requested < recorded) {
            log.warn(
                    "--feature-level {} ignored: this member already runs at level {}, and a level is never"
                            + " lowered",
                    requested,
                    recorded);
        }
        if (requested > f.level) {
            f.raise(requested);
        } else if (recorded == 0) {
            f.write(f.level);
        }
        return f;
    }

    /** The level recorded in dir, 0 when none is (a new data directory, or one of a release before 0.2.0). */
    public static int read(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        if (!Files.exists(file)) {
            return 0;
        }
        String s = Files.readString(file, StandardCharsets.UTF_8).trim();
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IOException(file + " holds '" + s + "', not a feature level");
        }
    }

    public int current() {
        return level;
    }

    /** Racks in the member list, and the placement that follows them. */
    public boolean racks() {
        return level >= RACKS;
    }

    /** Backups encrypted as DHTENC02 (DHTENC01 below: the format the release before reads). */
    public boolean newBackupFormat() {
        return level >= RACKS;
    }

    /** Raises the level (no change if it is already there), recorded before it applies. */
    public synchronized void raise(int to) throws IOException {
        if (to < BASE || to > MAX) {
            throw new IllegalArgumentException(
                    "release " + Release.VERSION + " knows feature levels " + BASE + " to " + MAX + ", not " + to);
        }
        if (to < level) {
            throw new IllegalArgumentException("this member runs at feature level " + level + ": a level is never"
                    + " lowered (" + to + " asked)");
        }
        if (to == level) {
            return;
        }
        write(to);
        log.info(
                "feature level {} -> {}: members of releases before {} are refused from now on",
                level,
                to,
                FIRST_RELEASE[to]);
        level = to;
    }

    private void write(int value) throws IOException {
        AtomicFiles.writeString(dir.resolve(FILE), value + "\n");
    }

    /**
     * Why a member request from a member of this release (the value of {@link Release#MEMBER_HEADER}, null when the
     * request carries none) is refused at the current level, or null when it is served.
     */
    public String refusal(String memberRelease) {
        if (level < RACKS || memberRelease != null && !memberRelease.isBlank()) {
            return null;
        }
        return "this cluster runs at feature level " + level + ", which members of releases before "
                + FIRST_RELEASE[level] + " do not understand (racks, DHTENC02 backups): the request comes from such a"
                + " member (it sends no " + Release.MEMBER_HEADER + "). Run it at release " + FIRST_RELEASE[level]
                + " or later: a raised feature level cannot be rolled back (docs/upgrading.md)";
    }

    /** Why a member list with racks cannot be used at this level, or null. */
    public String racksRefusal() {
        return racks()
                ? null
                : "racks in the member list need feature level " + RACKS + " (this member runs at "
                        + level + "): first run every member at release " + FIRST_RELEASE[RACKS]
                        + " or later, then raise the"
                        + " level on every member (POST /v0/admin/feature-level {\"level\": " + RACKS
                        + "}, or --feature-level "
                        + RACKS + "), then put racks in the list (docs/upgrading.md)";
    }

    /** For GET /v0/admin/feature-level. */
    public Map<String, Object> report() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("release", Release.VERSION);
        m.put("featureLevel", level);
        m.put("maxFeatureLevel", MAX);
        return m;
    }
}
