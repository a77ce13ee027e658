package dev.dht.node.release;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * This build's release (semantic version, the pom's: CHANGELOG.md, releases.tsv). Shown by {@code --version}, on
 * every answer to {@code /v0/status} ({@value #HEADER}), as {@code dht_build_info}, and sent to the other members
 * on every member request ({@link #MEMBER_HEADER}) so that a member of a release the cluster's feature level no
 * longer allows is refused by name (docs/upgrading.md).
 */
public final class Release {
    /** The release on /v0/status answers (a client header: outside the member protocol's X-Dht- namespace). */
    public static final String HEADER = "Dht-Release";
    /** The sender's release on member requests; releases before 0.2.0 send none. */
    public static final String MEMBER_HEADER = "X-Dht-Release";

    public static final String VERSION = load();

    private Release() {}

    private static String load() {
        try (InputStream in = Release.class.getResourceAsStream("/dht-release.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "unknown").trim();
            return v.startsWith("${") ? "unknown" : v; // an unfiltered copy (an IDE's build)
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
