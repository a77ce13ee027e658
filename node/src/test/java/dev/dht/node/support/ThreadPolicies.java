package dev.dht.node.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The threads of a process as the kernel schedules them (Linux): per thread name, as /proc gives it (the first 15
 * characters of a Java thread's name), the scheduling policy of each thread of that name (0 SCHED_OTHER, 5
 * SCHED_IDLE; field 41 of the thread's stat).
 */
public final class ThreadPolicies {
    public static final int SCHED_OTHER = 0;
    public static final int SCHED_IDLE = 5;

    private ThreadPolicies() {}

    public static Map<String, List<Integer>> of(long pid) {
        Map<String, List<Integer>> out = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8)
                            .strip();
                    out.computeIfAbsent(name, n -> new ArrayList<>()).add(statField(task, 41));
                } catch (NoSuchFileException ended) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** Field {@code field} (1-based, as proc(5) numbers them) of a thread's stat, its task directory given. */
    public static int statField(Path task, int field) throws IOException {
        String stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // the name may hold spaces
        return Integer.parseInt(fields[field - 3]); // the fields after the name start at the 3rd
    }
}
