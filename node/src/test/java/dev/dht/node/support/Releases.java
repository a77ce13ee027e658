package dev.dht.node.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Earlier releases of the node, as upgrade tests run them (docs/upgrading.md): releases.tsv names each release's
 * commit; scripts/release-jar.sh builds its jar once per machine (scripts/node-at.sh: a Maven run of that commit's
 * sources the first time, cached under ~/.cache/dht/nodes/COMMIT after) and prints where it is.
 */
public final class Releases {
    private Releases() {
    }

    private static Path root() {
        Path repo = Path.of("").toAbsolutePath();
        while (repo != null && !Files.exists(repo.resolve("releases.tsv"))) {
            repo = repo.getParent();
        }
        if (repo == null) {
            throw new IllegalStateException("releases.tsv not found above " + Path.of("").toAbsolutePath());
        }
        return repo;
    }

    /** The newest release listed that is not this build's version: the one this build upgrades from. */
    public static String previous(String current) {
        try {
            List<String> lines = Files.readAllLines(root().resolve("releases.tsv"), StandardCharsets.UTF_8);
            String previous = null;
            for (String line : lines) {
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
        try {
            Process p = new ProcessBuilder(root().resolve("scripts/release-jar.sh").toString(), version)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("scripts/release-jar.sh " + version + " failed (exit "
                        + p.exitValue() + ")");
            }
            return Path.of(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
