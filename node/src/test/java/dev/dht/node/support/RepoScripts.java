package dev.dht.node.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The repository the tests run in, and its scripts that build and cache what tests need (a tool, an old jar). */
final class RepoScripts {
    private RepoScripts() {}

    /** The repository's root: the nearest directory above the working directory with scripts/lib.sh. */
    static Path root() {
        Path repo = Path.of("").toAbsolutePath();
        while (repo != null && !Files.exists(repo.resolve("scripts/lib.sh"))) {
            repo = repo.getParent();
        }
        if (repo == null) {
            throw new IllegalStateException("not run inside the repository: no scripts/lib.sh above "
                    + Path.of("").toAbsolutePath());
        }
        return repo;
    }

    /** Runs scripts/NAME with these arguments (its errors to the test's output) and returns what it printed. */
    static String output(String name, String... args) {
        List<String> cmd =
                new ArrayList<>(List.of(root().resolve("scripts").resolve(name).toString()));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + ")");
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
