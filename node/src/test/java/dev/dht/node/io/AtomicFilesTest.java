package dev.dht.node.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
    @TempDir
    Path dir;

    /**
     * A restore's job file is saved by its load thread and by the thread that learns every member has loaded, at
     * nearly the same moment: every save must succeed and the file must hold one whole text (a failed save left a
     * member serving with its restore stuck in "loaded").
     */
    @Test
    void writersRacingOnOneFileEachWriteWholeAndNoneFails() throws Exception {
        Path file = dir.resolve("state").resolve("job.json");
        int writers = 4;
        int rounds = 400;
        List<String> texts = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            texts.add(String.valueOf((char) ('a' + w)).repeat(64 << 10)); // big enough to be caught half written
        }
        CyclicBarrier together = new CyclicBarrier(writers);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> torn = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            String text = texts.get(w);
            threads.add(Thread.ofPlatform().start(() -> {
                for (int r = 0; r < rounds; r++) {
                    try {
                        together.await(10, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        failures.add(e);
                        return;
                    }
                    try {
                        AtomicFiles.writeString(file, text);
                        String read = Files.readString(file);
                        if (!texts.contains(read)) {
                            torn.add(read.length() + " chars");
                        }
                    } catch (Exception e) {
                        failures.add(e); // and on: every writer takes every round
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failures).as("saves that failed").isEmpty();
        assertThat(torn).as("reads of a file not whole").isEmpty();
        assertThat(texts).contains(Files.readString(file));
        try (Stream<Path> left = Files.list(file.getParent())) {
            assertThat(left.map(p -> p.getFileName().toString()).toList())
                    .as("no temporary file left")
                    .containsExactlyElementsOf(Set.of("job.json"));
        }
    }
}
