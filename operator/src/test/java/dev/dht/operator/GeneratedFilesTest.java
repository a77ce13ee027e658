package dev.dht.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.docs.GeneratedFiles;
import dev.dht.operator.testing.Repo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed generated files match what this build generates from the Java model: the CRD in
 * crds/ and in the chart, and docs/crd-reference.md. It only reads: GeneratedFiles' main (scripts/sync-crds.sh,
 * {@code make crds}) writes them.
 */
class GeneratedFilesTest {
    static Stream<Arguments> committedFiles() throws IOException {
        return GeneratedFiles.expected().entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("committedFiles")
    void committedCopyIsUpToDate(String relative, String generated) throws IOException {
        Path committed = Repo.path(relative);
        assertThat(Files.exists(committed))
                .as(relative + " exists (run make crds)")
                .isTrue();
        assertThat(Files.readString(committed))
                .as(
                        relative
                                + " is stale: the Java model changed. Run make crds (scripts/sync-crds.sh) and commit the result")
                .isEqualTo(generated);
    }
}
