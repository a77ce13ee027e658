package dev.dht.node.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Earlier releases of the node, as upgrade tests run them (docs/upgrading.md): releases.tsv names each release's
 * commit; scripts/release-jar.sh builds its jar once per machine (scripts/node-at.sh: a Maven run of that commit's
 * sources the first time, cached under ~/.cache/dht/nodes/COMMIT after) and prints where it is.
 */
public final class Releases {
    private Releases() {}

    /** The newest release listed that is not this build's version: the one this build upgrades from. */
    public static String previous(String current) {
        try {
            String previous = null;
            for (String line : Files.readAllLines(RepoScripts.root().resolve("releases.tsv"), StandardCharsets.UTF_8)) {
                String[] f = line.split("\t");
                if (!line.startsWith("#") && f.length >= 2 && !f[0].equals(current)) {
                    previous = f[0];
                }
            }
            if (previous == null) {
                throw new IllegalStateException("releases.tsv lists no release before " + current);
            }
            return previous;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The node jar of a listed release, built if this machine has not built it yet. */
    public static Path jar(String version) {
        return Path.of(RepoScripts.output("release-jar.sh", version));
    }
}
