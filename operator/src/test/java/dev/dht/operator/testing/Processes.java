package dev.dht.operator.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command line tool (helm, kubectl) to completion and captures what it printed. */
public final class Processes {
    public record Result(int exitCode, String stdout, String stderr) {
        public Result orFail(String what) {
            if (exitCode != 0) {
                throw new AssertionError(
                        what + " exited " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr);
            }
            return this;
        }
    }

    private Processes() {}

    public static Result run(List<String> command, Map<String, String> env, Path dir) {
        try {
            var builder = new ProcessBuilder(command).directory(dir.toFile());
            builder.environment().putAll(env);
            var out = java.nio.file.Files.createTempFile("proc", ".out");
            var err = java.nio.file.Files.createTempFile("proc", ".err");
            builder.redirectOutput(out.toFile()).redirectError(err.toFile());
            var process = builder.start();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError(command + " did not finish in 5 minutes");
            }
            var result = new Result(
                    process.exitValue(),
                    java.nio.file.Files.readString(out, StandardCharsets.UTF_8),
                    java.nio.file.Files.readString(err, StandardCharsets.UTF_8));
            java.nio.file.Files.deleteIfExists(out);
            java.nio.file.Files.deleteIfExists(err);
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    public static Result kubectl(String... args) {
        var command = new ArrayList<String>();
        command.add(KubeApiServer.kubectl().toString());
        command.add("--kubeconfig=" + KubeApiServer.kubeconfigFile());
        command.addAll(List.of(args));
        return run(command, Map.of(), Repo.root());
    }
}
